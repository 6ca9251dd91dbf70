import ArgumentParser
import BenchCore
import Corpus
import Foundation
import Harness
import Imaging
import Measuring
import Probe
import Report
import Strategies

struct CorpusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corpus",
        abstract: "Measure every image of a folder (or a list of loopback URLs): what each costs to fetch and show.",
        discussion: """
            Every regular file under the folder (recursively; hidden ones skipped) is looked at: its format \
            comes from its first bytes, never its name. Each image is served by the embedded loopback server \
            (held in memory only while its runs are in progress) and measured with every strategy x renderer \
            x allocator, each run in a fresh child, as `bench run` does. A text file instead lists URLs, one a \
            line (# comments and blank lines skipped); only loopback hosts are accepted.

            Writes <out>/corpus.csv (one row per run; one row with its status for a file that is not an image \
            or cannot be read, and for a folder that cannot be read: a read_error row named folder/), <out>/corpus-summary.csv (images ranked by peak memory per pixel) and the \
            chart's data in <out>/charts/data (scripts/corpus-plots.sh <out> draws charts/corpus.svg and .png). \
            A name that is not UTF-8 or holds control or format characters is written escaped, byte for byte, on one \
            line: a\\xff.jpg, new\\nline.jpg (a backslash in a name is doubled).

            Examples:
              bench corpus ~/Pictures                                 download; full and thumbnail; system malloc
              bench corpus photos/ --strategy data --strategy download --allocator jemalloc --runs 5 --jobs 2
              bench corpus urls.txt                                   urls.txt: http://127.0.0.1:8080/a.jpg ...

            Exit status: 0 every image measured and every run succeeded; 3 some runs failed or some files are \
            not images or cannot be read, or a folder cannot be read (each is a row); 64 bad command-line input, or a URL list with \
            malformed or non-loopback lines, ports out of range or a URL named twice (all named); 65 --resume over a \
            corpus.csv with a row twice or of another run; 66 the folder or list does not exist or holds nothing; \
            70 harness error; 73/74/75 and 129/130/143 as for `bench run`.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "A folder of images, or a text file of image URLs (one a line).",
            valueName: "folder-or-url-list"
        )
    )
    var source: String

    @OptionGroup var matrix: MatrixOptions<CorpusCommand>
    @OptionGroup var limits: DecodeLimitOptions<CorpusCommand>

    @OptionGroup(title: "Sampling") var timing: TrialTimingOptions
    @OptionGroup(title: "Parallelism") var parallelism: JobsOptions
    @OptionGroup(title: "Sharding") var sharding: ShardOption

    @OptionGroup var output: OutFolderOption<CorpusCommand>
    var out: String? { output.out }

    @OptionGroup var replacing: ReplaceOption<CorpusCommand>
    var replace: Bool { replacing.replace }

    var plan: BenchmarkPlan { matrix.plan }

    /// What a corpus run writes into its folder, checked before the first trial.
    func validate() throws {
        try resuming.validate(out: out, replace: replace)
    }

    @OptionGroup(title: "Resuming") var resuming: ResumeOption

    func run() throws {
        var entries: [CorpusEntry]
        do {
            // The output folder (or runs/, where runs go by default) may be inside the corpus: its
            // CSVs and chart data would be measured as "not an image" rows by the next run.
            var said = false
            entries = try CorpusInput.entries(at: source, skipping: out ?? "runs") { path in
                if !said {
                    printError(
                        "corpus: skipping \(path): it is where bench writes its results\(out == nil ? " (runs/)" : " (--out)")"
                    )
                }
                said = true
            }
        } catch {
            throw BenchFailure(error.kind == .badList ? .usage : .noInput, error.description).reported()
        }
        let shardSelection = sharding.shard.map { CorpusShard.select(entries, shard: $0) }
        entries = shardSelection?.entries ?? entries
        var settings = TrialSettings()
        settings.maxPixel = limits.maxPixel
        settings.maxImagePixels = limits.maxImagePixels
        timing.apply(to: &settings)
        let request = CorpusRequest(
            entries: entries,
            shardSelection: shardSelection,
            source: URL(fileURLWithPath: source).standardizedFileURL.path,
            plan: plan,
            shard: sharding.shard,
            settings: settings,
            output: MeasurementOutput(out: out, replacing: replace, resuming: resuming.resume, jobs: parallelism.jobs)
        )
        try measuring { try CorpusMeasurement(request).run() }
    }
}

/// corpus's defaults for the shared options, and why.
extension CorpusCommand: MatrixDefaults, DecodeLimitDefaults, OutDefaults {
    static let defaultStrategies = ["download"]
    static let strategyDefaultHelp = "download"
    static let takesCalibrationStrategies = false
    static let defaultRenders: [RenderMode] = [.full, .thumbnail]
    static let renderDefaultHelp = "full and thumbnail"
    static let defaultAllocators: [Allocator] = [.system]
    static let allocatorDefaultHelp = "system"
    static let defaultRuns = 3
    static let maximumRuns = 1000
    static let runsMeaning = "Runs per image and cell, each in a fresh child process"
    static let runsDefaultWhy =
        "3 by default: a corpus has many images, each run a fresh child, so fewer runs an image keep a folder's run short (run: 5, for the gate's test)."
    static var defaultMaxPixel: Int { RunCommand.defaultMaxPixel }
    static let overDecodeBudget = "such runs are decode_error rows"
    static var outHelp: String { OutputFiles.outHelp(.corpus) }
}

extension CorpusCommand: ReplaceDefaults {
    static var replacedFiles: String { "an earlier corpus run's files" }
}
