import ImageMemoryBench

// bench is the harness's command line with no strategies of a user's: the same entry point a
// user's own executable calls with theirs.
BenchMain.main()
