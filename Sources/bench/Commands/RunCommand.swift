import ArgumentParser
import Foundation
import Harness
import Imaging
import Report

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Measure the matrix of strategies, renderers and allocators (the default command).",
        discussion: """
        Examples:
          bench --strategy download                 both renderers, both allocators, 5 runs each
          bench --strategy data --render full --allocator jemalloc --runs 10
          bench --url http://127.0.0.1:8080/photo.jpg --strategy all

        Exit status: 0 all runs succeeded; 3 some runs failed (they are rows with a status);
        64 bad command-line input; 70 the harness could not start; 130 interrupted.
        """)

    @OptionGroup(title: "Matrix") var matrix: MatrixOptions
    @OptionGroup(title: "Fixture (embedded server)") var fixture: FixtureOptions

    @Option(help: "Measure this http(s) URL instead of the embedded server's fixture.")
    var url: String?

    @Option(help: "With --url: a small resource fetched through the strategy before the baseline (warm-up).")
    var warmupURL: String?

    @Option(help: "Throttle the embedded server, bytes per second with k/M/G suffix (e.g. 20M).", transform: { try ByteRate.parse($0) })
    var bandwidth: ByteRate?

    @Option(help: "Longest side the thumbnail renderer aims for, in pixels.")
    var maxPixel = 1024

    @Option(help: "Refuse to decode images whose decode would allocate more than this many RGBA pixels (decompression bombs); such runs are decode_error rows. Pillow's limit.")
    var maxImagePixels = DecodeBudget.defaultMaxImagePixels

    @OptionGroup(title: "Sampling") var timing: TrialTimingOptions

    @Flag(help: "Run children without libHeapPeak.so (no exact heap peak; for measuring its cost).")
    var noExactHeap = false

    @Option(help: "Folder for trials.csv, summary.csv, timeline.csv and trials.json.")
    var out = "results"

    func validate() throws {
        if let url { _ = try Self.httpURL(url, option: "--url") }
        if let warmupURL {
            guard url != nil else { throw ValidationError("--warmup-url only applies with --url") }
            _ = try Self.httpURL(warmupURL, option: "--warmup-url")
        }
        if url != nil && bandwidth != nil {
            throw ValidationError("--bandwidth throttles the embedded server and cannot apply to --url")
        }
        guard (16...100_000).contains(maxPixel) else { throw ValidationError("--max-pixel must be between 16 and 100000 (got \(maxPixel))") }
        guard DecodeBudget.validRange.contains(maxImagePixels) else {
            throw ValidationError("--max-image-pixels must be between \(DecodeBudget.validRange.lowerBound) and \(DecodeBudget.validRange.upperBound) (got \(maxImagePixels))")
        }
        do { _ = try InjectedRegression.fromEnvironment() } catch { throw ValidationError("\(error)") }
    }

    static func httpURL(_ text: String, option: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            throw ValidationError("\(option) '\(text)' is not a valid URL; expected http://host[:port]/path or https://...")
        }
        return url
    }

    func run() throws {
        if let injected = try? InjectedRegression.fromEnvironment() {
            printError("warning: \(InjectedRegression.environmentVariable)=\(injected.rawValue): a deliberate regression is injected (test only)")
        }
        let source: ImageSource
        if let url {
            source = .external(url: try Self.httpURL(url, option: "--url"),
                               warmupURL: try warmupURL.map { try Self.httpURL($0, option: "--warmup-url") })
        } else {
            source = .embedded(fixture: fixture.spec, bandwidthBytesPerSecond: bandwidth?.bytesPerSecond)
        }
        var settings = TrialSettings()
        settings.maxPixel = maxPixel
        settings.maxImagePixels = maxImagePixels
        timing.apply(to: &settings)
        settings.fixtureCacheDirectory = fixture.cacheDirectory

        let runner = BenchmarkRunner(plan: matrix.plan, source: source, settings: settings,
                                     launcher: ChildProcessLauncher(exactHeapPeak: !noExactHeap))
        let writer = ResultsWriter(directory: URL(fileURLWithPath: out, isDirectory: true))
        let progress = ProgressLine()
        Interruption.install()

        let results: [TrialResult]
        do {
            results = try runner.run(onResult: { latest, all, planned in
                progress.show(latest, index: all.count, total: planned)
                try? writer.writeTrials(all)
            }, shouldStop: { Interruption.requested })
        } catch {
            progress.finish()
            BenchFailure(.internalError, "cannot start the benchmark: \(error)").exit()
        }
        progress.finish()

        let context = RunContext(
            command: CommandLine.arguments.joined(separator: " "),
            source: url ?? "embedded fixture \(fixture.spec.fileName)",
            payloadBytes: results.compactMap(\.payloadBytes).max(),
            runsPerCell: matrix.runs, sampleIntervalNanos: settings.sampleIntervalNanos)
        try writer.writeAll(results, context: context)

        let summaries = CellSummary.rankedByPeakRSSDelta(CellSummary.summarize(results))
        print("Cells ranked by median peak RSS delta, smallest first.")
        print(SummaryTable.render(summaries))
        print(PayloadCopiesTable.render(summaries))
        let failed = results.filter { !$0.isSuccess }
        for failure in failed {
            printError("run failed: \(failure.cell) run \(failure.run): \(failure.status.rawValue): \(failure.error)")
        }
        print("wrote \([writer.trialsCSV, writer.summaryCSV, writer.timelineCSV, writer.trialsJSON].map(\.path).joined(separator: ", "))")
        if Interruption.requested { throw ExitCode(BenchExitCode.interrupted.rawValue) }
        if !failed.isEmpty { throw ExitCode(BenchExitCode.runFailed.rawValue) }
    }
}
