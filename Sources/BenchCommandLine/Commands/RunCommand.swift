import ArgumentParser
import Foundation
import BenchCore
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
        """)

    @OptionGroup(title: "Matrix") var matrix: MatrixOptions<RunCommand>
    @OptionGroup(title: "Fixture (embedded server)") var fixture: FixtureOptions

    @Option(help: "Measure this http(s) URL instead of the embedded server's fixture.")
    var url: String?

    @Option(help: "With --url: the resource each child fetches through its strategy before the baseline (warm-up). (default: the origin's root, http(s)://host:port/)")
    var warmupURL: String?

    @Flag(help: "Measure the first request of a fresh process: no warm-up fetch before the baseline (the decoder is still warmed up).")
    var cold = false

    @OptionGroup var throttle: BandwidthOption
    var bandwidth: ByteRate? { throttle.bandwidth }

    @OptionGroup var limits: DecodeLimitOptions<RunCommand>

    @OptionGroup(title: "Sampling") var timing: TrialTimingOptions
    @OptionGroup(title: "Parallelism") var parallelism: JobsOptions
    @OptionGroup(title: "Sharding") var sharding: ShardOption

    @Flag(help: "Run children with the malloc wrappers passing calls through uncounted (BENCH_EXACT_HEAP=off): no exact heap peak; for measuring its cost.")
    var noExactHeap = false

    @OptionGroup var output: OutFolderOption<RunCommand>
    var out: String? { output.out }

    @OptionGroup var replacing: ReplaceOption<RunCommand>
    var replace: Bool { replacing.replace }

    @OptionGroup(title: "Resuming") var resuming: ResumeOption

    /// What a run writes into its folder, checked before the first trial.
    static let outputFiles = ["trials.csv", "timeline.csv", "summary.csv", "trials.json", "holders.csv", "holders.folded",
                              "residency.csv"]
        .map { OutputFolder.File($0) }
        + [OutputFolder.File(ResultsWriter.environmentFileName, replacesRows: false)]

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
            throw ValidationError("\(given) shapes the embedded server's fixture and cannot apply to --url (the URL's image is measured)")
        }
        if bandwidth != nil && parallelism.jobs > 1 {
            throw ValidationError("--bandwidth measures how a child holds a paced body over time, which children running beside it would change; use --jobs 1 with it")
        }
        do { _ = try InjectedRegression.fromEnvironment() } catch { throw ValidationError("\(error)") }
    }

    /// The root of `url`'s origin (scheme, host and port): the default warm-up target, so that the
    /// session, the connection and libcurl are set up against the server that is measured.
    static func origin(of url: URL) -> URL { url.originRoot }

    static func httpURL(_ text: String, option: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            throw ValidationError("\(option) '\(text)' is not a valid URL; expected http://host[:port]/path or https://...")
        }
        // Foundation takes any number as a port; every fetch would then fail with URLError -1000.
        if let port = url.port, !(1...65535).contains(port) {
            throw ValidationError("\(option) '\(text)': port \(port) is out of range (1-65535)")
        }
        return url
    }

    func run() throws {
        if let injected = try? InjectedRegression.fromEnvironment() {
            printError("warning: \(InjectedRegression.environmentVariable)=\(injected.rawValue): a deliberate regression is injected (test only)")
        }
        let source: ImageSource
        var measuredURL: URL?
        if let url {
            let measured = try Self.httpURL(url, option: "--url")
            measuredURL = measured
            let warmup = cold ? nil : try warmupURL.map { try Self.httpURL($0, option: "--warmup-url") } ?? Self.origin(of: measured)
            source = .external(url: measured, warmupURL: warmup)
            let origin = warmupURL == nil ? " (the same origin)" : ""
            printError(warmup.map { "warm-up: each child fetches \($0.absoluteString) through its strategy before the baseline\(origin); --cold measures the first request instead" }
                       ?? "cold: no warm-up fetch; each child's first request is measured (session, connection and libcurl set-up included)")
        } else {
            source = .embedded(fixture: fixture.spec, bandwidthBytesPerSecond: bandwidth?.bytesPerSecond, warmUp: !cold)
            if cold { printError("cold: no warm-up fetch; each child's first request is measured (session, connection and libcurl set-up included)") }
        }
        var settings = TrialSettings()
        settings.maxPixel = limits.maxPixel
        settings.maxImagePixels = limits.maxImagePixels
        timing.apply(to: &settings)
        settings.fixtureCacheDirectory = fixture.cacheDirectory

        Interruption.install()
        var plan = matrix.plan
        plan.shard = sharding.shard
        let recorded: [(String, String)] = [
            ("source", url.map { "\($0) (warm-up: \(cold ? "none" : warmupURL ?? "the origin"))" }
                ?? "embedded fixture \(fixture.spec.fileName)\(cold ? " cold" : "")\(bandwidth.map { " at \($0.bytesPerSecond) bytes/s" } ?? "")"),
            ("--strategy", plan.strategies.joined(separator: ",")),
            ("--render", plan.renders.map(\.rawValue).joined(separator: ",")),
            ("--allocator", plan.allocators.map(\.rawValue).joined(separator: ",")),
            ("--runs", String(plan.runs)),
            ("--no-exact-heap", String(noExactHeap)),
            ("--shard", plan.shard.map { "\($0)" } ?? "none"),
        ] + ResumableOutput.describe(settings)
            + (resuming.resume ? try measuredURL.map { try URLPayload.checkResume($0, out: out ?? "") } ?? [] : [])
        let folder = try ResumableOutput.open(out, files: Self.outputFiles, replacing: replace, resume: resuming.resume,
                                              command: "run", settings: recorded)
        let sink = RescuingWriter(folder: folder)
        let writer = ResultsWriter(rescuing: sink)
        let shardRecord = try sharding.record(
            .run, in: folder, settings: ShardOption.settings(plan, settings).merging(runSettings) { $1 },
            portion: (Set(plan.schedule().map(\.cell)).count, plan.cells.count, "cells"),
            planned: PlannedKeys(plan.schedule().map { PlannedKeys.key(cell: $0.cell, run: $0.run) }))
        let runner = BenchmarkRunner(plan: plan, source: source, settings: settings,
                                     launcher: ChildProcessLauncher(exactHeapPeak: !noExactHeap, loopbackOnly: source.isLoopback),
                                     jobs: parallelism.jobs)

        // The planned trials; a resumed run drops those trials.csv already holds.
        var schedule = plan.schedule()
        var earlier: [TrialResult] = []
        if resuming.resume {
            earlier = try Self.rowsDone(in: folder, holderThresholdBytes: settings.holderThresholdBytes)
            let done = Set(earlier.map { RunKey(cell: $0.cell, run: $0.run) })
            schedule = schedule.filter { !done.contains(RunKey(cell: $0.cell, run: $0.run)) }
            printError("resuming \(folder.directory.path): \(earlier.count) of \(plan.schedule().count) runs done, \(schedule.count) to go")
        }
        let complete = resuming.resume && schedule.isEmpty
        parallelism.warnIfOversubscribed()
        let progress = ProgressLine(alreadyDone: earlier.count)

        var results = earlier
        var measured = 0
        if complete {
            printError("every planned run is already in \(folder.directory.appendingPathComponent("trials.csv").path); "
                       + "writing the summary, trials.json and holders from the folder's files")
        } else {
            if resuming.resume {
                // What a stop by a signal wrote at its end counts fewer rows than trials.csv will: gone
                // until the end rewrites them, so that the folder reads as one run at any moment.
                for name in ["summary.csv", "trials.json"] { unlink(folder.directory.appendingPathComponent(name).path) }
            }
            writer.startRows(resuming: resuming.resume)
            do {
                var payloadRecorded = false
                let new = try runner.run(schedule, onResult: { latest, _, _ in
                    writer.appendRow(latest)
                    measured += 1
                    if !payloadRecorded, latest.isSuccess, let measuredURL {
                        payloadRecorded = true
                        URLPayload.record(measuredURL, in: folder.directory)
                    }
                    progress.show(latest, index: earlier.count + measured, total: plan.schedule().count)
                }, shouldStop: { Interruption.requested })
                results += new
            } catch {
                progress.finish()
                throw BenchFailure(.internalError, "cannot start the benchmark: \(error)").reported()
            }
            progress.finish()
        }

        var context = RunContext(
            command: CommandLine.arguments.joined(separator: " "),
            source: url ?? "embedded fixture \(fixture.spec.fileName)",
            payloadBytes: results.compactMap(\.payloadBytes).max(),
            runsPerCell: matrix.runs, sampleIntervalNanos: settings.sampleIntervalNanos)
        context.plannedRuns = plan.schedule().count
        context.shard = sharding.shard?.description
        context.completedRuns = results.count
        context.interruptedBy = Interruption.signalName
        context.jobs = parallelism.jobs
        let allocatorSettings = AllocatorEnvironment.settings()
        context.allocatorEnvironment = allocatorSettings.isEmpty ? nil : allocatorSettings
        try writer.writeAll(results, context: context)
        ShardOption.end(shardRecord, rows: results.count, sink: sink)
        if sink.failure == nil { folder.markLatest() }

        let summaries = CellSummary.rankedByPeakRSSDelta(CellSummary.summarize(results))
        print("Cells ranked by median peak RSS delta, smallest first.")
        print(SummaryTable.render(summaries))
        print(PayloadCopiesTable.render(summaries))
        let holders = HoldersTable.render(results, cells: summaries.map(\.cell))
        if !holders.isEmpty { print(holders) }
        let residency = ResidencyTable.render(results, cells: summaries.map(\.cell))
        if !residency.isEmpty { print(residency) }
        if let warning = AllocatorEnvironment.warning(allocatorSettings, record: "recorded in trials.json") { print(warning) }
        let failed = results.filter { !$0.isSuccess }
        for failure in failed {
            printError("run failed: \(failure.cell) run \(failure.run): \(failure.status.rawValue): \(failure.error)")
        }
        try Self.finish(sink: sink, written: writer.writtenFiles, completed: results.count,
                    planned: context.plannedRuns ?? results.count, failed: !failed.isEmpty)
    }

    /// What else a run's figures depend on, for shards to be merged only with their like.
    var runSettings: [String: String] {
        ["fixture": fixture.spec.fileName, "--url": url ?? "", "--warmup-url": warmupURL ?? "", "--cold": String(cold),
         "--bandwidth": bandwidth.map { String($0.bytesPerSecond) } ?? "", "--no-exact-heap": String(noExactHeap)]
    }

    /// Opens the output folder and checks the `files` to be written there before the first trial,
    /// or exits 73 (unwritable, or an earlier run's rows without `replacing`) or 75 (in use).
    /// Every measuring command starts here, so it also checks $TMPDIR, where the run keeps its
    /// scratch (73, and nothing created, when it cannot), and clears the scratch that killed runs left.
    static func openOutput(_ out: String?, files: [OutputFolder.File], replacing: Bool, runID: String? = nil) throws -> OutputFolder {
        if let problem = TemporaryFolder.problem() { throw BenchFailure(.cannotCreateOutput, problem).reported() }
        StaleScratch.removeLeftovers()
        do {
            return try OutputFolder.open(out: out, files: files, replacing: replacing, runID: runID)
        } catch let failure as OutputFolder.Failure {
            throw BenchFailure(failure.kind == .busy ? .outputBusy : .cannotCreateOutput, failure.description).reported()
        } catch {
            throw BenchFailure(.cannotCreateOutput, "cannot open the output folder: \(error)").reported()
        }
    }

    /// The trials an interrupted run left in its folder, rebuilt from its appended files (each torn
    /// last line dropped, with a note) with their samples and holders; holders.csv loses the rows
    /// of runs trials.csv lacks, which are measured again. A row twice, or a row of another run than
    /// settings.json's, is refused (65).
    static func rowsDone(in folder: OutputFolder, holderThresholdBytes: Int) throws -> [TrialResult] {
        do {
            // Not TrialsFile.load: trials.json of the stop before may count fewer rows, and is rewritten at the end.
            let trials = try RunFiles.load(folder.directory, runID: folder.runID,
                                           holderThresholdBytes: holderThresholdBytes)
            try RunFiles.dropHoldersOfUnrecordedRuns(in: folder.directory, keeping: trials)
            return trials
        } catch {
            throw BenchFailure(.badInput, "--resume: \(error)").reported()
        }
    }

    /// Says where the files are and exits: 74 when they are not where asked, 128+signal when
    /// interrupted, 3 when some runs failed.
    static func finish(sink: RescuingWriter, written: [URL], completed: Int, planned: Int, failed: Bool) throws {
        if let lost = sink.failureSummary {
            if Interruption.requested { printError("bench: interrupted by \(Interruption.signalName ?? "a signal") after \(completed) of \(planned) runs") }
            printError("bench: \(lost)")
            throw ExitCode(BenchExitCode.outputLost.rawValue)
        }
        print("wrote \(written.map(\.path).joined(separator: ", "))")
        print("results in \(sink.folder.directory.path)")
        if Interruption.requested {
            printError("bench: interrupted by \(Interruption.signalName ?? "a signal") after \(completed) of \(planned) runs; "
                       + "what was measured is written")
            throw ExitCode(Interruption.exitStatus)
        }
        if failed { throw ExitCode(BenchExitCode.runFailed.rawValue) }
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
    static let runsDefaultWhy = "5 by default: with 5 runs a side the gate's exact significance test can reach p < 0.005, with 4 it cannot (corpus and sweep: 3; list-scroll: 1)."
    static let defaultMaxPixel = 1024
    static let overDecodeBudget = "such runs are decode_error rows"
    static let outHelp = "Folder for trials.csv, summary.csv, timeline.csv, trials.json, holders.csv, holders.folded and environment.txt (default: a new runs/<UTC time>/)."
}

extension RunCommand: ReplaceDefaults {
    static var replacedFiles: String { "an earlier run's files" }
}
