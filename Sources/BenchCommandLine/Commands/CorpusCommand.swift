import BenchCore
import ArgumentParser
import Corpus
import Foundation
import Harness
import Imaging
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
        A name that is not UTF-8 or holds control characters is written escaped, byte for byte, on one \
        line: a\\xff.jpg, new\\nline.jpg (a backslash in a name is doubled).

        Examples:
          bench corpus ~/Pictures                                 download; full and thumbnail; system malloc
          bench corpus photos/ --strategy data --strategy download --allocator jemalloc --runs 5 --jobs 2
          bench corpus urls.txt                                   urls.txt: http://127.0.0.1:8080/a.jpg ...

        Exit status: 0 every image measured and every run succeeded; 3 some runs failed or some files are \
        not images or cannot be read, or a folder cannot be read (each is a row); 64 bad command-line input, or a URL list with \
        malformed or non-loopback lines (all named); 66 the folder or list does not exist or holds nothing; \
        70 harness error; 73/74/75 and 129/130/143 as for `bench run`.
        """)

    @Argument(help: ArgumentHelp("A folder of images, or a text file of image URLs (one a line).", valueName: "folder-or-url-list"))
    var source: String

    @OptionGroup var matrix: MatrixOptions<CorpusCommand>
    @OptionGroup var limits: DecodeLimitOptions<CorpusCommand>

    @OptionGroup(title: "Sampling") var timing: TrialTimingOptions
    @OptionGroup(title: "Parallelism") var parallelism: JobsOptions
    @OptionGroup(title: "Sharding") var sharding: ShardOption

    @OptionGroup var output: OutFolderOption<CorpusCommand>
    var out: String? { output.out }

    @Flag(help: "Overwrite an earlier corpus run's files in --out (refused by default, naming that run).")
    var replace = false

    var plan: BenchmarkPlan { matrix.plan }

    func run() throws {
        if let warning = AllocatorEnvironment.warning(AllocatorEnvironment.settings(), record: "not recorded in corpus.csv") { printError(warning) }
        var entries: [CorpusEntry]
        do {
            // The output folder (or runs/, where runs go by default) may be inside the corpus: its
            // CSVs and chart data would be measured as "not an image" rows by the next run.
            var said = false
            entries = try CorpusInput.entries(at: source, skipping: out ?? "runs") { path in
                if !said { printError("corpus: skipping \(path): it is where bench writes its results\(out == nil ? " (runs/)" : " (--out)")") }
                said = true
            }
        } catch {
            throw BenchFailure(error.kind == .badList ? .usage : .noInput, error.description).reported()
        }
        let shardSelection = sharding.shard.map { CorpusShard.select(entries, shard: $0) }
        entries = shardSelection?.entries ?? entries
        Interruption.install()
        let folder = try RunCommand.openOutput(out, files: ["corpus.csv", "corpus-summary.csv", "charts/data/corpus.dat"].map { OutputFolder.File($0) }
                                                + [OutputFolder.File("charts/data/vars.gp", replacesRows: false)], replacing: replace)
        var settings = TrialSettings()
        settings.maxPixel = limits.maxPixel
        settings.maxImagePixels = limits.maxImagePixels
        timing.apply(to: &settings)
        try sharding.record(.corpus, in: folder, settings: ShardOption.settings(plan, settings),
                            portion: (entries.count, shardSelection?.corpusEntries ?? entries.count, "files"), corpus: shardSelection.map { ($0.corpusEntries, $0.corpusDigest) })

        // Ctrl-C while the URLs are fetched for their headers stops here, without waiting for URLs
        // that do not answer: what was not examined is not measured.
        var images: [CorpusImage] = []
        for entry in entries {
            if Interruption.requested { break }
            let image = CorpusImage.examine(entry, shouldStop: { Interruption.requested })
            if Interruption.requested { break }
            images.append(image)
        }
        let skipped = images.filter { !$0.isMeasured }
        printError("corpus: \(images.count) file\(images.count == 1 ? "" : "s"), \(images.count - skipped.count) image\(images.count - skipped.count == 1 ? "" : "s") to measure"
                   + (skipped.isEmpty ? "" : "; not measured: " + skipped.map { "\($0.entry.name) (\($0.skipStatus ?? ""))" }.joined(separator: ", ")))
        let plan = self.plan
        let runner = CorpusRunner(images: images, plan: plan, settings: settings, jobs: parallelism.jobs)
        parallelism.warnIfOversubscribed()
        let sink = RescuingWriter(folder: folder)
        let runID = folder.runID
        let progress = CorpusProgress(images: images, runsPerImage: plan.schedule().count)

        let unsortedRows: [CorpusRow]
        do {
            unsortedRows = try runner.run(onRow: { row, all, _ in
                progress.show(row)
                sink.write([("corpus.csv", Data(CorpusCSV.render(all, runID: runID).utf8))])
            }, shouldStop: { Interruption.requested })
        } catch {
            progress.finish()
            throw BenchFailure(.internalError, "cannot start the corpus run: \(error)").reported()
        }
        progress.finish()

        // Finishing order while running; the final file in the corpus's order, easier to read and diff.
        let rows = unsortedRows.sorted(by: Self.corpusOrder)
        let rankingRender = CorpusRanking.rankingRender(plan.renders) ?? .full
        let costs = CorpusRanking.rank(rows, by: rankingRender)
        try? FileManager.default.createDirectory(at: folder.directory.appendingPathComponent("charts/data"), withIntermediateDirectories: true)
        var files: [(name: String, contents: Data)] = [
            ("corpus.csv", Data(CorpusCSV.render(rows, runID: runID).utf8)),
            ("corpus-summary.csv", Data(CorpusRanking.csv(costs, renders: plan.renders, runID: runID).utf8)),
        ]
        files += CorpusChartData.files(costs, renders: plan.renders).map { ("charts/data/" + $0.name, Data($0.contents.utf8)) }
        let written = sink.write(files, final: true)
        if sink.failure == nil { folder.markLatest() }

        print(CorpusRanking.table(costs, renders: plan.renders, rankedBy: rankingRender))
        if let thumbnailWorst = plan.renders.contains(.thumbnail) && rankingRender != .thumbnail
            ? CorpusRanking.worstSentence(CorpusRanking.rank(rows, by: .thumbnail), render: .thumbnail) : nil {
            print(thumbnailWorst)
        }
        let failed = rows.filter { !$0.isSuccess }
        for row in failed {
            if let result = row.result {
                printError("run failed: \(row.image.entry.name) \(result.cell) run \(result.run): \(result.status.rawValue): \(result.error)")
            } else {
                printError("not measured: \(row.image.entry.name): \(row.image.skipStatus ?? ""): \(row.image.skipReason ?? "")")
            }
        }
        let planned = runner.schedule.count + skipped.count
        try RunCommand.finish(sink: sink, written: written, completed: rows.count, planned: planned, failed: !failed.isEmpty)
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
    static let runsDefaultWhy = "3 by default: a corpus has many images, each run a fresh child, so fewer runs an image keep a folder's run short (run: 5, for the gate's test)."
    static var defaultMaxPixel: Int { RunCommand.defaultMaxPixel }
    static let overDecodeBudget = "such runs are decode_error rows"
    static let outHelp = "Folder for corpus.csv, corpus-summary.csv and the chart's data (default: a new runs/<UTC time>/)."
}

extension CorpusCommand {
    /// By file, then cell, then run; an image's one unmeasured row has no cell and comes first.
    static func corpusOrder(_ lhs: CorpusRow, _ rhs: CorpusRow) -> Bool {
        if lhs.image.entry.name != rhs.image.entry.name { return lhs.image.entry.name < rhs.image.entry.name }
        guard let left = lhs.result, let right = rhs.result else { return lhs.result == nil && rhs.result != nil }
        if left.cell != right.cell { return left.cell < right.cell }
        return left.run < right.run
    }
}

/// The corpus's progress line: images done, runs done, the latest run and the time left.
final class CorpusProgress {
    private let line = ProgressLine()
    private let runsPerImage: Int
    private let totalImages: Int
    private let totalRuns: Int
    private var runsLeft: [String: Int]
    private var imagesDone = 0
    private var runsDone = 0

    init(images: [CorpusImage], runsPerImage: Int) {
        self.runsPerImage = runsPerImage
        totalImages = images.count
        totalRuns = images.filter(\.isMeasured).count * runsPerImage
        runsLeft = Dictionary(images.map { ($0.entry.name, $0.isMeasured ? runsPerImage : 1) }, uniquingKeysWith: { $1 })
    }

    func show(_ row: CorpusRow) {
        let name = row.image.entry.name
        runsLeft[name, default: 1] -= 1
        if runsLeft[name] == 0 { imagesDone += 1 }
        guard let result = row.result else { return }
        runsDone += 1
        let peak = result.peakRSSDeltaBytes.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? result.status.rawValue
        line.show(text: "images \(imagesDone)/\(totalImages), runs", index: runsDone, total: totalRuns,
                  latest: "\(name) \(result.cell) run \(result.run): \(peak)")
    }

    func finish() { line.finish() }
}
