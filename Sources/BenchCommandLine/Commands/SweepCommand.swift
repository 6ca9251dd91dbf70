import ArgumentParser
import BenchCore
import Foundation
import Harness
import Imaging
import Measuring
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
            """
    )

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
        let entries = try occurrences.flatMap {
            try ListOption.entries($0, option: "--sizes", example: "1,2,4,8,16,32")
        }
        let sizes = try entries.map { entry in
            guard let size = Double(entry), size >= 0.05 && size <= 200 else {
                throw ValidationError(
                    "--sizes '\(occurrences.joined(separator: ","))' must be numbers of MB between 0.05 and 200, e.g. 1,2,4,8,16,32 ('\(entry)' is not)"
                )
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

    func run() throws {
        var settings = TrialSettings()
        timing.apply(to: &settings)
        settings.fixtureCacheDirectory = cache.directory
        let plan = BenchmarkPlan(
            strategies: strategyNames,
            renders: render.modes,
            allocators: allocator.allocators,
            runs: runs
        )
        let request = SweepRequest(
            plan: plan,
            sizesMB: sizesMB,
            settings: settings,
            output: MeasurementOutput(out: out, replacing: replace, resuming: resuming.resume, jobs: parallelism.jobs)
        )
        try measuring { try SweepMeasurement(request).run() }
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
    static let runsDefaultWhy =
        "3 by default: the slope is fitted over every size's median, so fewer runs a size keep the sweep short (run: 5, for the gate's test)."
    static var outHelp: String { OutputFiles.outHelp(.sweep) }
}

extension SweepCommand: ReplaceDefaults {
    static var replacedFiles: String { "an earlier sweep's sweep.csv" }
}
