import ArgumentParser
import Foundation
import BenchCore
import Harness
import Imaging
import Probe
import Report
import Strategies

struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Measure peak memory against payload size: the same strategies on fixtures of several sizes.",
        discussion: """
        For each size, a fixture of about that many bytes is made (3:2 like the article's photo, \
        quality 90, sides a multiple of 16, pixel count from the bytes per pixel of the article's \
        6000x4000 fixture) and measured with its own server and runner, one fresh child per run. \
        The fitted slope of peak RSS over payload size is the number of bytes a strategy holds per \
        byte of payload. Writes <out>/sweep.csv.

        Examples:
          bench sweep                                   every strategy, 1-32 MB, fetch only, glibc malloc
          bench sweep --strategy data --strategy download --sizes 1,4,16 --runs 5

        Output: by default a new folder runs/<UTC time>/ (runs/latest points to the newest); --out DIR \
        writes into DIR instead.

        Exit status: 0 all runs succeeded; 3 some runs failed; 64 bad input; 70 harness error; 73 the \
        output folder cannot be written, or holds an earlier sweep.csv (without --replace; checked before the first run); 74 writing failed during the run \
        (the file is in the rescue folder named on stderr); 75 another run holds the output folder; \
        130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP (what was measured is written).
        """)

    @OptionGroup var strategy: StrategyOption<SweepCommand>
    @OptionGroup var render: RenderOption<SweepCommand>

    @OptionGroup var allocator: AllocatorOption<SweepCommand>

    @OptionGroup var runsOption: RunsOption<SweepCommand>
    var runs: Int { runsOption.runs }

    @Option(parsing: .singleValue, help: "Payload sizes to aim for, in MB (10^6 bytes) (\(ListOption.forms)).")
    var sizes = ["1,2,4,8,16,32"]

    @OptionGroup(title: "Sampling") var timing: TrialTimingOptions
    @OptionGroup(title: "Parallelism") var parallelism: JobsOptions

    @OptionGroup var cache: FixtureCacheOption

    @OptionGroup var output: OutFolderOption<SweepCommand>
    var out: String? { output.out }

    @OptionGroup var replacing: ReplaceOption<SweepCommand>
    var replace: Bool { replacing.replace }

    @OptionGroup(title: "Resuming") var resuming: ResumeOption

    /// The sizes of --sizes (checked by `validate()`).
    var sizesMB: [Double] { (try? Self.sizes(sizes)) ?? [] }

    /// Numbers of MB from 0.05 to 200, each once: a size given twice would be measured twice.
    static func sizes(_ occurrences: [String]) throws -> [Double] {
        let entries = try occurrences.flatMap { try ListOption.entries($0, option: "--sizes", example: "1,2,4,8,16,32") }
        let sizes = try entries.map { entry in
            guard let size = Double(entry), size >= 0.05 && size <= 200 else {
                throw ValidationError("--sizes '\(occurrences.joined(separator: ","))' must be numbers of MB between 0.05 and 200, e.g. 1,2,4,8,16,32 ('\(entry)' is not)")
            }
            return size
        }
        try ListOption.requireDistinct(sizes, entries: entries, option: "--sizes")
        return sizes
    }

    var strategyNames: [String] { strategy.names }

    func validate() throws {
        try resuming.validate(out: out, replace: replace)
        _ = try Self.sizes(sizes)
    }

    /// What a sweep writes into its folder.
    static let outputFiles = [OutputFolder.File("sweep.csv")]

    func run() throws {
        if let warning = AllocatorEnvironment.warning(AllocatorEnvironment.settings(), record: "not recorded in sweep.csv") { printError(warning) }
        Interruption.install()
        var settings = TrialSettings()
        timing.apply(to: &settings)
        settings.fixtureCacheDirectory = cache.directory
        let recorded: [(String, String)] = [
            ("--strategy", strategyNames.joined(separator: ",")),
            ("--render", render.modes.map(\.rawValue).joined(separator: ",")),
            ("--allocator", allocator.allocators.map(\.rawValue).joined(separator: ",")),
            ("--runs", String(runs)),
            ("--sizes", sizesMB.sorted().map { String($0) }.joined(separator: ",")),
        ] + ResumableOutput.describe(settings)
        let folder = try ResumableOutput.open(out, files: Self.outputFiles, replacing: replace,
                                              resume: resuming.resume, command: "sweep", settings: recorded)

        let steps: [SweepStep]
        do {
            let bytesPerPixel = try Self.articleBytesPerPixel(cache: settings.fixtureCacheDirectory)
            steps = sizesMB.sorted().map { Self.step(targetBytes: Int($0 * 1e6), bytesPerPixel: bytesPerPixel) }
        } catch {
            throw BenchFailure(.internalError, "cannot make the article's fixture to size the others: \(error)").reported()
        }

        let plan = BenchmarkPlan(strategies: strategyNames, renders: render.modes, allocators: allocator.allocators, runs: runs)
        let planned = plan.schedule().count * steps.count
        let sink = RescuingWriter(folder: folder)
        let runID = folder.runID
        let sweepFile = folder.directory.appendingPathComponent("sweep.csv")

        // A resumed sweep measures only the (size, cell, run) that sweep.csv does not hold yet.
        var rows: [(step: SweepStep, result: TrialResult)] = []
        if resuming.resume, let data = FileManager.default.contents(atPath: sweepFile.path), !data.isEmpty {
            do {
                let (text, torn) = CSV.completeLines(String(decoding: data, as: UTF8.self))
                if torn { StandardError.write(CSV.tornLineNote(sweepFile.path)) }
                rows = try SweepCSV.parse(text, runID: (runID, RunSettings.fileName))
            } catch {
                throw BenchFailure(.badInput, "--resume: \(sweepFile.path) cannot be read back: \(error)").reported()
            }
        }
        let done = Set(rows.map { "\($0.step.targetBytes) \($0.result.cell) \($0.result.run)" })
        let earlier = rows.count
        if resuming.resume { printError("resuming \(folder.directory.path): \(earlier) of \(planned) runs done, \(planned - done.count) to go") }
        let progress = ProgressLine(alreadyDone: earlier)
        parallelism.warnIfOversubscribed()

        let complete = resuming.resume && done.count >= planned
        if complete {
            printError("every planned run is already in \(sweepFile.path); nothing to measure")
        } else {
            let header = SweepCSV.stepColumns + TrialsCSV.header(runID: runID)
            sink.startRows("sweep.csv", header: header, resuming: resuming.resume)
        }
        for step in steps where !Interruption.requested && !complete {
            let schedule = plan.schedule().filter { !done.contains("\(step.targetBytes) \($0.cell) \($0.run)") }
            guard !schedule.isEmpty else { continue }
            // A runner per size: its own fixture and server, children as isolated as in `bench run`.
            let runner = BenchmarkRunner(plan: plan, source: .embedded(fixture: step.fixture, bandwidthBytesPerSecond: nil),
                                         settings: settings, jobs: parallelism.jobs)
            do {
                _ = try runner.run(schedule, onResult: { latest, _, _ in
                    rows.append((step, latest))
                    progress.show(latest, index: rows.count, total: planned)
                    let stepFields = [step.targetBytes, step.width, step.height].map(String.init)
                    sink.append("sweep.csv", lines: CSV.line(stepFields) + "," + TrialsCSV.line(latest, runID: runID))
                }, shouldStop: { Interruption.requested })
            } catch {
                progress.finish()
                throw BenchFailure(.internalError, "cannot measure the \(step.width)x\(step.height) fixture: \(error)").reported()
            }
        }
        progress.finish()
        sink.finishRows()
        // The whole file once more only when appending failed (into the rescue folder).
        let written = sink.rowsAppended ? [sweepFile]
            : sink.write([("sweep.csv", Data(SweepCSV.render(rows, runID: runID).utf8))], final: true)
        if sink.failure == nil { folder.markLatest() }

        let sweep = ChartData(trials: [], timelines: [:], sweep: rows).sweep
        for series in sweep {
            let slope = series.fit.map { String(format: "%.2f bytes held per payload byte", $0.slope) } ?? "no fit"
            print("\(series.title(among: sweep)): \(slope); " + series.points.map {
                String(format: "%.1f MB -> %.1f MB", $0.payloadBytes / 1e6, $0.peakRSSDelta.median / 1e6)
            }.joined(separator: ", "))
        }
        let failed = rows.filter { !$0.result.isSuccess }
        for (step, failure) in failed {
            printError("run failed: \(failure.cell) at \(step.width)x\(step.height) run \(failure.run): \(failure.status.rawValue): \(failure.error)")
        }
        try RunCommand.finish(sink: sink, written: written, completed: rows.count, planned: planned, failed: !failed.isEmpty)
    }

    /// Bytes per pixel of the article's fixture: the generator's grain makes JPEG size close to
    /// proportional to the pixel count, so this one ratio sizes every other fixture.
    static func articleBytesPerPixel(cache: URL) throws -> Double {
        let file = try FixtureGenerator.cachedFixture(.article, in: cache)
        let bytes = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
        return Double(bytes?.intValue ?? 0) / Double(FixtureSpec.article.width * FixtureSpec.article.height)
    }

    /// A 3:2 fixture of about `targetBytes`, sides rounded to whole 16-pixel MCUs.
    static func step(targetBytes: Int, bytesPerPixel: Double) -> SweepStep {
        let pixels = Double(targetBytes) / bytesPerPixel
        let height = max(16, Int((pixels / 1.5).squareRoot() / 16 + 0.5) * 16)
        let width = max(16, Int(Double(height) * 1.5 / 16 + 0.5) * 16)
        return SweepStep(targetBytes: targetBytes, width: width, height: height)
    }
}

/// sweep's defaults for the shared options, and why.
extension SweepCommand: StrategyDefaults, RenderDefaults, AllocatorDefaults, RunsDefaults, OutDefaults {
    static var defaultStrategies: [String] { StrategyCatalog.names }
    static let strategyDefaultHelp = "all, for the slope of every strategy"
    static let takesCalibrationStrategies = false
    static let defaultRenders: [RenderMode] = [.none]
    static let renderDefaultHelp = "none: the sweep measures what the fetch holds per payload byte"
    static let defaultAllocators: [Allocator] = [.system]
    static let allocatorDefaultHelp = "system: the slope of the platform's malloc, as the article's app has"
    static let defaultRuns = 3
    static let maximumRuns = 1000
    static let runsMeaning = "Runs per strategy, renderer and size, each in a fresh child process"
    static let runsDefaultWhy = "3 by default: the slope is fitted over every size's median, so fewer runs a size keep the sweep short (run: 5, for the gate's test)."
    static let outHelp = "Folder for sweep.csv (default: a new runs/<UTC time>/)."
}

extension SweepStep {
    /// The article's fixture parameters (quality, seed, baseline) at this step's size.
    var fixture: FixtureSpec {
        var spec = FixtureSpec.article
        spec.width = width
        spec.height = height
        return spec
    }
}

extension SweepCommand: ReplaceDefaults {
    static var replacedFiles: String { "an earlier sweep's sweep.csv" }
}
