import BenchCommandLine
import BenchCore
import Foundation
import Harness
import Strategies

/// The entry point of an executable that measures your strategies and renderers with the whole
/// `bench` command line.
///
/// ```swift
/// // Sources/my-bench/main.swift
/// import ImageMemoryBench
/// BenchMain.main(strategies: [MyLoader.self], renderers: [MyRenderer.self])
/// ```
///
/// `swift run my-bench list` shows your strategies and renderers beside the built-in ones,
/// `--render my-renderer` measures your renderer with any strategy, and
/// `swift run -c release my-bench --strategy my-loader --strategy download --out runs/mine`
/// measures them, each run in a fresh child: your executable re-executed, with the exact heap
/// peak (the harness's malloc wrappers are linked into it through this library), warm-up, the
/// RSS sampler, `--allocator jemalloc`, CSV and JSON, the summary, `bench compare` and the gate.
public enum BenchMain {
    /// Adds `strategies` and `renderers` to the catalog and runs the command line given to this process.
    ///
    /// Call it once, first thing in `main`: every child is this executable re-executed, and it
    /// must register the same strategies and renderers to find the ones it measures. Exits with
    /// status 64 when a name is taken or not usable on a command line; otherwise returns when the
    /// command succeeded and exits with the command's status when it did not.
    public static func main(
        strategies: [any ImageFetchStrategy.Type] = [],
        renderers: [any ImageRenderer.Type] = []
    ) {
        Bench.prepareStandardStreams()
        do {
            try StrategyCatalog.registerUserStrategies(strategies.map { $0.catalogEntry })
            try RendererCatalog.registerUserRenderers(renderers.map { $0.catalogEntry })
        } catch {
            StandardError.write("error: \(error)\n")
            exit(BenchExitCode.usage.rawValue)
        }
        MeasuredChildEntry.runIfSpawned()
        Bench.main()
    }
}
