import ImageMemoryBench

// The whole bench command line, with AsyncHTTPClient's two strategies and a renderer of the
// example's own added to the catalog:
// `ahc-bench list`, `ahc-bench --strategy ahc-collect --strategy data --out runs/ahc`, ...
BenchMain.main(
    strategies: [CollectedBodyStrategy.self, FileDownloadStrategy.self],
    renderers: [DecodeThenResizeRenderer.self]
)
