import ArgumentParser
import BenchCore
import Foundation
import Harness
import Imaging
import Measuring
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

            Output: by default a new folder runs/<UTC time>/ (runs/latest points to the newest); \
            --out DIR writes into DIR instead. results/ holds the committed reference: `make reference` \
            re-measures it.

            Exit status: 0 all runs succeeded; 3 some runs failed (they are rows with a status);
            64 bad command-line input (or --resume with other settings, or a --url that serves other bytes);
            65 --resume over a trials.csv with a row twice or of another run; 70 the harness could not
            start; 73 the output folder cannot be created or written, or holds an earlier run's files or
            another command's (without --replace; checked before the first trial); 74 writing failed during the run (the
            files are in the rescue folder named on stderr); 75 another run holds the output folder;
            130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP (what was measured is written).
            """
    )

    @OptionGroup(title: "Matrix") var matrix: MatrixOptions<RunCommand>
    @OptionGroup(title: "Fixture (embedded server)") var fixture: FixtureOptions

    @Option(help: "Measure this http(s) URL instead of the embedded server's fixture.")
    var url: String?

    @Option(
        help:
            "With --url: the resource each child fetches through its strategy before the baseline (warm-up). (default: the origin's root, http(s)://host:port/)"
    )
    var warmupURL: String?

    @Flag(
        help:
            "Measure the first request of a fresh process: no warm-up fetch before the baseline (the decoder is still warmed up)."
    )
    var cold = false

    @OptionGroup var throttle: BandwidthOption
    var bandwidth: ByteRate? { throttle.bandwidth }

    @OptionGroup var limits: DecodeLimitOptions<RunCommand>

    @OptionGroup(title: "Sampling") var timing: TrialTimingOptions
    @OptionGroup(title: "Parallelism") var parallelism: JobsOptions
    @OptionGroup(title: "Sharding") var sharding: ShardOption

    @Flag(
        help:
            "Run children with the malloc wrappers passing calls through uncounted (BENCH_EXACT_HEAP=off): no exact heap peak; for measuring its cost."
    )
    var noExactHeap = false

    @OptionGroup var output: OutFolderOption<RunCommand>
    var out: String? { output.out }

    @OptionGroup var replacing: ReplaceOption<RunCommand>
    var replace: Bool { replacing.replace }

    @OptionGroup(title: "Resuming") var resuming: ResumeOption

    func validate() throws {
        try resuming.validate(out: out, replace: replace)
        if let url { _ = try Self.httpURL(url, option: "--url") }
        if let warmupURL {
            guard url != nil else { throw ValidationError("--warmup-url only applies with --url") }
            _ = try Self.httpURL(warmupURL, option: "--warmup-url")
        }
        if cold && warmupURL != nil {
            throw ValidationError("--cold measures without a warm-up fetch; it cannot go with --warmup-url")
        }
        if url != nil && bandwidth != nil {
            throw ValidationError("--bandwidth throttles the embedded server and cannot apply to --url")
        }
        if url != nil, let given = fixture.givenNames.first {
            throw ValidationError(
                "\(given) shapes the embedded server's fixture and cannot apply to --url (the URL's image is measured)"
            )
        }
        if bandwidth != nil && parallelism.jobs > 1 {
            throw ValidationError(
                "--bandwidth measures how a child holds a paced body over time, which children running beside it would change; use --jobs 1 with it"
            )
        }
        do { _ = try InjectedRegression.fromEnvironment() } catch { throw ValidationError("\(error)") }
    }

    /// The root of `url`'s origin (scheme, host and port): the default warm-up target, so that the
    /// session, the connection and libcurl are set up against the server that is measured.
    static func origin(of url: URL) -> URL { url.originRoot }

    static func httpURL(_ text: String, option: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw ValidationError(
                "\(option) '\(text)' is not a valid URL; expected http://host[:port]/path or https://..."
            )
        }
        // Foundation takes any number as a port; every fetch would then fail with URLError -1000.
        if let port = url.port, !(1...65535).contains(port) {
            throw ValidationError("\(option) '\(text)': port \(port) is out of range (1-65535)")
        }
        return url
    }

    func run() throws {
        if let injected = try? InjectedRegression.fromEnvironment() {
            printError(
                "warning: \(InjectedRegression.environmentVariable)=\(injected.rawValue): a deliberate regression is injected (test only)"
            )
        }
        let (source, measuredURL) = try imageSource()
        var settings = TrialSettings()
        settings.maxPixel = limits.maxPixel
        settings.maxImagePixels = limits.maxImagePixels
        timing.apply(to: &settings)
        settings.fixtureCacheDirectory = fixture.cacheDirectory
        var plan = matrix.plan
        plan.shard = sharding.shard
        let request = RunRequest(
            plan: plan,
            source: source,
            sourceAsGiven: sourceAsGiven,
            settings: settings,
            exactHeap: !noExactHeap,
            measuredURL: measuredURL,
            output: MeasurementOutput(out: out, replacing: replace, resuming: resuming.resume, jobs: parallelism.jobs),
            launcher: ChildProcessLauncher(exactHeapPeak: !noExactHeap, loopbackOnly: source.isLoopback)
        )
        try measuring { try RunMeasurement(request).run() }
    }

    /// The image measured: --url's (with its warm-up), or the embedded server's fixture; said on stderr.
    func imageSource() throws -> (ImageSource, URL?) {
        let cold =
            "cold: no warm-up fetch; each child's first request is measured (session, connection and libcurl set-up included)"
        guard let url else {
            if self.cold { printError(cold) }
            return (
                .embedded(
                    fixture: fixture.spec,
                    bandwidthBytesPerSecond: bandwidth?.bytesPerSecond,
                    warmUp: !self.cold
                ), nil
            )
        }
        let measured = try Self.httpURL(url, option: "--url")
        let warmup =
            self.cold
            ? nil : try warmupURL.map { try Self.httpURL($0, option: "--warmup-url") } ?? Self.origin(of: measured)
        let origin = warmupURL == nil ? " (the same origin)" : ""
        printError(
            warmup.map {
                "warm-up: each child fetches \($0.absoluteString) through its strategy before the baseline\(origin); --cold measures the first request instead"
            }
                ?? cold
        )
        return (.external(url: measured, warmupURL: warmup), measured)
    }

    /// The source as the options give it, for settings.json, shard.json and trials.json.
    var sourceAsGiven: SettingsRecord.RunSource {
        SettingsRecord.RunSource(
            fixture: fixture.spec.fileName,
            url: url,
            warmupURL: warmupURL,
            cold: cold,
            bandwidthBytesPerSecond: bandwidth?.bytesPerSecond
        )
    }
}

/// run's defaults for the shared options, and why.
extension RunCommand: MatrixDefaults, DecodeLimitDefaults, OutDefaults {
    /// The article's two code paths: the default, so a bare `bench` reproduces its table.
    static let articleStrategies = ["data", "download"]
    static var defaultStrategies: [String] { articleStrategies }
    static let strategyDefaultHelp = "data and download, the article's two"
    static let takesCalibrationStrategies = true
    static let defaultRenders: [RenderMode] = [.none, .full]
    static let renderDefaultHelp = "none and full"
    static let defaultAllocators: [Allocator] = Allocator.allCases
    static let allocatorDefaultHelp = "both"
    static let defaultRuns = 5
    static let maximumRuns = 10_000
    static let runsMeaning = "Runs per cell, each in a fresh child process"
    static let runsDefaultWhy =
        "5 by default: with 5 runs a side the gate's exact significance test can reach p < 0.005, with 4 it cannot (corpus and sweep: 3; list-scroll: 1)."
    static let defaultMaxPixel = 1024
    static let overDecodeBudget = "such runs are decode_error rows"
    static var outHelp: String { OutputFiles.outHelp(.run) }
}

extension RunCommand: ReplaceDefaults {
    static var replacedFiles: String { "an earlier run's files" }
}
