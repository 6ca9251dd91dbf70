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

    @OptionGroup var replacing: ReplaceOption<CorpusCommand>
    var replace: Bool { replacing.replace }

    var plan: BenchmarkPlan { matrix.plan }

    /// What a corpus run writes into its folder, checked before the first trial.
    static let outputFiles = ["corpus.csv", "corpus-summary.csv", "charts/data/corpus.dat"]
        .map { OutputFolder.File($0) } + [OutputFolder.File("charts/data/vars.gp", replacesRows: false)]

    func validate() throws {
        try resuming.validate(out: out, replace: replace)
    }

    @OptionGroup(title: "Resuming") var resuming: ResumeOption

    /// What the rows depend on, recorded in settings.json and checked by --resume.
    func recordedSettings(_ settings: TrialSettings) -> [(String, String)] {
        let plan = self.plan
        let resolved = URL(fileURLWithPath: source).standardizedFileURL.path
        return [("source", resolved),
                ("--strategy", plan.strategies.joined(separator: ",")),
                ("--render", plan.renders.map(\.rawValue).joined(separator: ",")),
                ("--allocator", plan.allocators.map(\.rawValue).joined(separator: ",")),
                ("--runs", String(plan.runs))] + ResumableOutput.describe(settings)
            // Only when given, so that folders recorded without it resume as before: another shard's
            // files resumed into this folder would be merged twice.
            + (sharding.shard.map { [("--shard", $0.description)] } ?? [])
    }

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
        var settings = TrialSettings()
        settings.maxPixel = limits.maxPixel
        settings.maxImagePixels = limits.maxImagePixels
        timing.apply(to: &settings)
        let folder = try ResumableOutput.open(
            out, files: Self.outputFiles,
            replacing: replace, resume: resuming.resume, command: "corpus", settings: recordedSettings(settings))
        var shardRecord = try sharding.record(.corpus, in: folder, settings: ShardOption.settings(plan, settings),
                            portion: (entries.count, shardSelection?.corpusEntries ?? entries.count, "files"), corpus: shardSelection.map { ($0.corpusEntries, $0.corpusDigest) })

        // Ctrl-C while the URLs are fetched for their headers stops here, without waiting for URLs
        // that do not answer: what was not examined is not measured.
        var images: [CorpusImage] = []
        images.reserveCapacity(entries.count)
        for entry in entries {
            if Interruption.requested { break }
            let image = CorpusImage.examine(entry, shouldStop: { Interruption.requested })
            if Interruption.requested { break }
            images.append(image)
        }
        let plan = self.plan
        let runner = CorpusRunner(images: images, plan: plan, settings: settings, jobs: parallelism.jobs)
        let sink = RescuingWriter(folder: folder)
        let runID = folder.runID
        let corpusFile = folder.directory.appendingPathComponent("corpus.csv")

        // The planned rows; a resumed run drops those its folder already holds.
        var items = runner.schedule
        var unmeasured = runner.unmeasured
        let planned = items.count + unmeasured.count
        // A shard's plan, once every file was examined (a stop before that leaves it unknown).
        if shardRecord != nil && images.count == entries.count {
            let keys = items.map { PlannedKeys.key(file: images[$0.image].entry.name, cell: $0.cell, run: $0.run) }
                + unmeasured.map { PlannedKeys.key(file: $0.entry.name, cell: nil, run: nil) }
            shardRecord?.plan(PlannedKeys(keys))
            try shardRecord.map { try ShardOption.write($0, in: folder) }
        }
        var earlier: [CorpusCSVRow] = []
        if resuming.resume {
            earlier = try Self.rowsDone(in: corpusFile, runID: runID)
            // Only over a whole examination: a Ctrl-C during it leaves files unexamined, not gone.
            if !Interruption.requested {
                let kept = Self.rowsStillCurrent(earlier, images: images)
                if kept.count != earlier.count {
                    // Rewritten now, before rows are appended: a kill must not leave old and new rows of one key.
                    let text = CSV.line(CorpusCSV.header) + "\n" + kept.map(\.line).joined()
                    do { try AtomicFile.writeInFolder(Data(text.utf8), to: corpusFile) } catch {
                        throw BenchFailure(.cannotCreateOutput,
                                           "--resume: cannot rewrite \(corpusFile.path): \(error)").reported()
                    }
                    earlier = kept
                }
            }
            let done = Set(earlier.map(\.key))
            items = items.filter { !done.contains(CorpusRowKey(name: images[$0.image].entry.name, cell: $0.cell, run: $0.run)) }
            unmeasured = unmeasured.filter { !done.contains(CorpusRowKey(name: $0.entry.name, cell: nil, run: nil)) }
            printError("corpus: resuming \(folder.directory.path): \(earlier.count) of \(planned) rows done, \(items.count + unmeasured.count) to go")
        }
        let measured = images.count - runner.unmeasured.count
        printError("corpus: \(images.count) file\(images.count == 1 ? "" : "s"), \(measured) image\(measured == 1 ? "" : "s") to measure")
        parallelism.warnIfOversubscribed()

        let complete = resuming.resume && items.isEmpty && unmeasured.isEmpty
        var newRows: [CorpusRow] = []
        if complete {
            printError("corpus: every planned row is already in \(corpusFile.path); writing the summary only")
        } else {
            sink.startRows("corpus.csv", header: CorpusCSV.header, resuming: resuming.resume)
            let progress = CorpusProgress(total: planned, done: earlier.count)
            do {
                newRows = try runner.run(items, unmeasured: unmeasured, onRow: { row in
                    progress.show(row)
                    sink.append("corpus.csv", lines: CorpusCSV.line(row, runID: runID))
                }, shouldStop: { Interruption.requested })
            } catch {
                progress.finish()
                throw BenchFailure(.internalError, "cannot start the corpus run: \(error)").reported()
            }
            progress.finish()
            sink.finishRows()
        }

        // The rows of this run and the earlier ones, as rows of the images found now (a file gone
        // since keeps its rows in corpus.csv but has no place in the ranking).
        let byName = Dictionary(images.map { ($0.entry.name, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = (earlier.compactMap { row in byName[row.name].map { CorpusRow(image: $0, result: row.result) } } + newRows)
            .sorted(by: Self.corpusOrder)
        let rankingRender = CorpusRanking.rankingRender(plan.renders) ?? .full
        let costs = CorpusRanking.rank(rows, by: rankingRender)
        var files: [(name: String, contents: Data)] = []
        if !complete {
            // Once, at the end: every row in the corpus's order, easier to read and diff than finishing order.
            let lines = (earlier.map { (key: $0.key, line: $0.line) }
                         + newRows.map { (key: CorpusRowKey(name: $0.image.entry.name, cell: $0.result?.cell, run: $0.result?.run),
                                          line: CorpusCSV.line($0, runID: runID)) })
                .sorted { $0.key < $1.key }
            files.append(("corpus.csv", Data((CSV.line(CorpusCSV.header) + "\n" + lines.map(\.line).joined()).utf8)))
        }
        files.append(("corpus-summary.csv", Data(CorpusRanking.csv(costs, renders: plan.renders, runID: runID).utf8)))
        files += CorpusChartData.files(costs, renders: plan.renders).map { ("charts/data/" + $0.name, Data($0.contents.utf8)) }
        let written = sink.write(files, final: true)
        ShardOption.end(shardRecord, rows: earlier.count + newRows.count, sink: sink)
        if sink.failure == nil { folder.markLatest() }

        print(CorpusRanking.table(costs, renders: plan.renders, rankedBy: rankingRender))
        if let thumbnailWorst = plan.renders.contains(.thumbnail) && rankingRender != .thumbnail
            ? CorpusRanking.worstSentence(CorpusRanking.rank(rows, by: .thumbnail), render: .thumbnail) : nil {
            print(thumbnailWorst)
        }
        let failedRuns = rows.filter { $0.result != nil && !$0.isSuccess }
        for row in failedRuns.prefix(Self.failuresNamed) {
            if let result = row.result {
                printError("run failed: \(row.image.entry.name) \(result.cell) run \(result.run): \(result.status.rawValue): \(result.error)")
            }
        }
        if failedRuns.count > Self.failuresNamed {
            printError("bench: \(Self.counted(failedRuns.count - Self.failuresNamed)) more runs failed (rows in corpus.csv)")
        }
        // One counted line per reason, not a line per file: a corpus may hold thousands of them.
        let notMeasured = rows.filter { $0.result == nil }
        for (status, count) in Dictionary(grouping: notMeasured, by: { $0.image.skipStatus ?? "" }).mapValues(\.count).sorted(by: { $0.key < $1.key }) {
            printError("bench: \(Self.counted(count)) \(Self.notMeasuredWording(status, count: count)) (rows in corpus.csv)")
        }
        let rowCount = earlier.count + newRows.count
        try RunCommand.finish(sink: sink, written: written, completed: rowCount, planned: planned,
                              failed: !failedRuns.isEmpty || !notMeasured.isEmpty)
    }

    /// The rows of an interrupted run that still describe the corpus: those of a file gone since,
    /// of a file whose bytes changed (their digest), of a file now measured or not measured when it
    /// was the other way, and `changed` rows (never measured) are dropped, each file named on stderr.
    static func rowsStillCurrent(_ rows: [CorpusCSVRow], images: [CorpusImage]) -> [CorpusCSVRow] {
        let byName = Dictionary(images.map { ($0.entry.name, $0) }, uniquingKeysWith: { first, _ in first })
        var gone: [String: Int] = [:]
        var changed: [String: (rows: Int, then: String, now: String)] = [:]
        let kept = rows.filter { row in
            guard let image = byName[row.name] else { gone[row.name, default: 0] += 1; return false }
            let sameBytes = row.payloadDigest == nil || image.payloadDigest == nil
                || row.payloadDigest == image.payloadDigest
            if sameBytes && (row.result == nil) == !image.isMeasured && row.result?.status != .changed { return true }
            let then = row.payloadDigest.map { "FNV-1a-64 \($0)" } ?? "not read"
            let now = image.payloadDigest.map { "\(image.fileBytes ?? 0) bytes, FNV-1a-64 \($0)" }
                ?? (image.skipStatus ?? "not read")
            changed[row.name, default: (0, then, now)].rows += 1
            return false
        }
        for (name, change) in changed.sorted(by: { $0.key < $1.key }) {
            let rows = "\(counted(change.rows)) earlier row\(change.rows == 1 ? " is" : "s are")"
            printError("corpus: \(name) changed since the interrupted run (\(change.then) then; \(change.now) now): "
                       + "its \(rows) dropped and it is measured again")
        }
        if !gone.isEmpty {
            let names = gone.keys.sorted()
            let shown = names.prefix(failuresNamed).joined(separator: ", ")
                + (names.count > failuresNamed ? " and \(names.count - failuresNamed) more" : "")
            let files = "\(counted(names.count)) file\(names.count == 1 ? "" : "s")"
            printError("corpus: \(counted(gone.values.reduce(0, +))) rows of \(files) no longer in the corpus "
                       + "are dropped: \(shown)")
        }
        return kept
    }

    /// Failed runs named one a line on stderr; the rest are counted.
    static let failuresNamed = 20

    /// 4998 -> "4,998".
    static func counted(_ count: Int) -> String {
        let digits = Array(String(count))
        return String(digits.enumerated().flatMap { index, digit in
            index > 0 && (digits.count - index) % 3 == 0 ? [",", digit] : [digit]
        })
    }

    static func notMeasuredWording(_ status: String, count: Int) -> String {
        let one = count == 1
        switch status {
        case "not_an_image": return one ? "file is not an image" : "files are not images"
        case "read_error": return one ? "file or folder cannot be read" : "files or folders cannot be read"
        case "fetch_error": return one ? "URL cannot be fetched" : "URLs cannot be fetched"
        default: return one ? "entry is not measured (\(status))" : "entries are not measured (\(status))"
        }
    }

    /// The rows an interrupted run left in corpus.csv (its torn last line dropped, with a note).
    /// A key twice, or a row of another run than `runID` (settings.json's), is refused (65).
    static func rowsDone(in file: URL, runID: String) throws -> [CorpusCSVRow] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        do {
            let (rows, torn) = try CorpusCSV.parse(String(decoding: data, as: UTF8.self),
                                                   runID: (runID, RunSettings.fileName))
            if torn { StandardError.write(CSV.tornLineNote(file.path)) }
            return rows
        } catch {
            throw BenchFailure(.badInput, "--resume: \(file.path) cannot be read back: \(error)").reported()
        }
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

/// The corpus's progress line: rows done of the planned, the rate, the time left, failures so far.
final class CorpusProgress {
    private let line: ProgressLine
    private let total: Int
    private var done: Int

    init(total: Int, done: Int) {
        self.total = total
        self.done = done
        line = ProgressLine(alreadyDone: done)
    }

    func show(_ row: CorpusRow) {
        done += 1
        let latest: String
        if let result = row.result {
            let peak = result.peakRSSDeltaBytes.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? result.status.rawValue
            latest = "\(row.image.entry.name) \(result.cell) run \(result.run): \(peak)"
        } else {
            latest = "\(row.image.entry.name): \(row.image.skipStatus ?? "")"
        }
        line.show(text: "rows", index: done, total: total, latest: latest, failed: row.result.map { !$0.isSuccess } ?? false)
    }

    func finish() { line.finish() }
}

extension CorpusCommand: ReplaceDefaults {
    static var replacedFiles: String { "an earlier corpus run's files" }
}
