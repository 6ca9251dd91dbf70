import ImageMemoryBench

// The whole bench command line, with AsyncHTTPClient's two strategies added to the catalog:
// `ahc-bench list`, `ahc-bench --strategy ahc-collect --strategy data --out runs/ahc`, ...
BenchMain.main(strategies: [CollectedBodyStrategy.self, FileDownloadStrategy.self])
