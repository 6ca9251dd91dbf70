import BenchCore
import Corpus
import Foundation
import Harness
import Report

/// What `bench corpus` measures: the files of a folder or URL list (this shard's), each image
/// with every cell of the plan.
package struct CorpusRequest {
    /// The files found (this shard's, with --shard).
    package var entries: [CorpusEntry]
    package var shardSelection: CorpusShard.Selection?
    /// The plan, this shard, the trials' settings and what settings.json and shard.json record of them.
    package let record: SettingsRecord
    package var output: MeasurementOutput
    package var launcher: any TrialLauncher = ChildProcessLauncher()
    package var stop: any StopRequest = SignalStop()

    package init(
        entries: [CorpusEntry],
        shardSelection: CorpusShard.Selection?,
        source: String,
        plan: BenchmarkPlan,
        shard: Shard?,
        settings: TrialSettings,
        output: MeasurementOutput
    ) {
        self.entries = entries
        self.shardSelection = shardSelection
        self.record = SettingsRecord(source: .corpus(path: source), plan: plan, trial: settings, shard: shard)
        self.output = output
    }

    package var plan: BenchmarkPlan { record.plan }
    package var shard: Shard? { record.shard }
    package var settings: TrialSettings { record.trial }
}

/// `bench corpus`'s measurement: every file examined (its format from its bytes), each image
/// served from loopback and measured in fresh children, each row appended to corpus.csv as it
/// ends (a resumed run keeps the rows of files unchanged since), then corpus.csv in the corpus's
/// order, the ranking (corpus-summary.csv, its chart's data) and the table on stdout.
package struct CorpusMeasurement {
    package let request: CorpusRequest

    package init(_ request: CorpusRequest) { self.request = request }

    package func run() throws {
        AllocatorEnvironment.warnIfSet(record: "not recorded in corpus.csv")
        let plan = request.plan
        let measurement = try Measurement(
            .corpus,
            request.output,
            settings: request.record.resumeSettings,
            stop: request.stop
        )
        let selection = request.shardSelection
        try measurement.startShard(
            request.shard,
            .corpus,
            settings: request.record.mergeSettings,
            portion: (request.entries.count, selection?.corpusEntries ?? request.entries.count, "files"),
            corpus: selection.map { ($0.corpusEntries, $0.corpusDigest) }
        )
        let stop = measurement.stop

        // Ctrl-C while the URLs are fetched for their headers stops here, without waiting for URLs
        // that do not answer: what was not examined is not measured.
        var images: [CorpusImage] = []
        images.reserveCapacity(request.entries.count)
        for entry in request.entries {
            if stop.requested { break }
            let image = CorpusImage.examine(entry, shouldStop: { stop.requested })
            if stop.requested { break }
            images.append(image)
        }
        let runner = CorpusRunner(
            images: images,
            plan: plan,
            settings: request.settings,
            launcher: TrialLauncherOverride.launcher ?? request.launcher,
            jobs: request.output.jobs
        )
        let sink = measurement.sink
        let runID = measurement.runID
        let corpusFile = measurement.url(of: OutputFiles.corpus)

        // The planned rows; a resumed run drops those its folder already holds.
        var items = runner.schedule
        var unmeasured = runner.unmeasured
        let planned = items.count + unmeasured.count
        // A shard's plan, once every file was examined (a stop before that leaves it unknown).
        if images.count == request.entries.count {
            let keys =
                items.map { PlannedKeys.key(file: images[$0.image].entry.name, cell: $0.cell, run: $0.run) }
                + unmeasured.map { PlannedKeys.key(file: $0.entry.name, cell: nil, run: nil) }
            try measurement.planShard(PlannedKeys(keys))
        }
        var earlier: [CorpusCSVRow] = []
        if measurement.resuming {
            earlier = try Self.rowsDone(in: corpusFile, runID: runID)
            // Only over a whole examination: a Ctrl-C during it leaves files unexamined, not gone.
            if !stop.requested {
                let kept = Self.rowsStillCurrent(earlier, images: images)
                if kept.count != earlier.count {
                    // Rewritten now, before rows are appended: a kill must not leave old and new rows of one key.
                    let text = CSV.line(CorpusCSV.header) + "\n" + kept.map(\.line).joined()
                    do { try AtomicFile.writeInFolder(Data(text.utf8), to: corpusFile) } catch {
                        throw BenchFailure(
                            .cannotCreateOutput,
                            "--resume: cannot rewrite \(corpusFile.path): \(error)"
                        )
                    }
                    earlier = kept
                }
            }
            let done = Set(earlier.map(\.key))
            items = items.filter {
                !done.contains(CorpusRowKey(name: images[$0.image].entry.name, cell: $0.cell, run: $0.run))
            }
            unmeasured = unmeasured.filter { !done.contains(CorpusRowKey(name: $0.entry.name, cell: nil, run: nil)) }
            measurement.sayResuming(
                done: earlier.count,
                planned: planned,
                toGo: items.count + unmeasured.count,
                unit: "rows",
                prefix: "corpus: "
            )
        }
        let measured = images.count - runner.unmeasured.count
        printError(
            "corpus: \(images.count) file\(images.count == 1 ? "" : "s"), \(measured) image\(measured == 1 ? "" : "s") to measure"
        )
        measurement.warnIfOversubscribed()

        let complete = measurement.resuming && items.isEmpty && unmeasured.isEmpty
        var newRows: [CorpusRow] = []
        if complete {
            printError("corpus: every planned row is already in \(corpusFile.path); writing the summary only")
        } else {
            sink.startRows(OutputFiles.corpus.name, header: CorpusCSV.header, resuming: measurement.resuming)
            let progress = CorpusProgress(total: planned, done: earlier.count)
            do {
                newRows = try runner.run(
                    items,
                    unmeasured: unmeasured,
                    onRow: { row in
                        progress.show(row)
                        sink.append(OutputFiles.corpus.name, lines: CorpusCSV.line(row, runID: runID))
                    },
                    shouldStop: { stop.requested }
                )
            } catch {
                progress.finish()
                throw BenchFailure(.internalError, "cannot start the corpus run: \(error)")
            }
            progress.finish()
            sink.finishRows()
        }

        // The rows of this run and the earlier ones, as rows of the images found now (a file gone
        // since keeps its rows in corpus.csv but has no place in the ranking).
        let byName = Dictionary(images.map { ($0.entry.name, $0) }, uniquingKeysWith: { first, _ in first })
        let rows =
            (earlier.compactMap { row in byName[row.name].map { CorpusRow(image: $0, result: row.result) } } + newRows)
            .sorted(by: Self.corpusOrder)
        let rankingRender = CorpusRanking.rankingRender(plan.renders) ?? .full
        let costs = CorpusRanking.rank(rows, by: rankingRender)
        var files: [(name: String, contents: Data)] = []
        if !complete {
            // Once, at the end: every row in the corpus's order, easier to read and diff than finishing order.
            let lines =
                (earlier.map { (key: $0.key, line: $0.line) }
                + newRows.map {
                    (
                        key: CorpusRowKey(name: $0.image.entry.name, cell: $0.result?.cell, run: $0.result?.run),
                        line: CorpusCSV.line($0, runID: runID)
                    )
                })
                .sorted { $0.key < $1.key }
            files.append(
                (OutputFiles.corpus.name, Data((CSV.line(CorpusCSV.header) + "\n" + lines.map(\.line).joined()).utf8))
            )
        }
        files.append(
            (OutputFiles.corpusSummary.name, Data(CorpusRanking.csv(costs, renders: plan.renders, runID: runID).utf8))
        )
        files += CorpusChartData.files(costs, renders: plan.renders).map {
            ("charts/data/" + $0.name, Data($0.contents.utf8))
        }
        files.append(Measurement.environmentFile)
        let written = sink.write(files, final: true)

        print(CorpusRanking.table(costs, renders: plan.renders, rankedBy: rankingRender))
        if let thumbnailWorst = plan.renders.contains(.thumbnail) && rankingRender != .thumbnail
            ? CorpusRanking.worstSentence(CorpusRanking.rank(rows, by: .thumbnail), render: .thumbnail) : nil
        {
            print(thumbnailWorst)
        }
        let failedRuns = rows.filter { $0.result != nil && !$0.isSuccess }
        for row in failedRuns.prefix(Self.failuresNamed) {
            if let result = row.result {
                printError(
                    "run failed: \(row.image.entry.name) \(result.cell) run \(result.run): \(result.status.rawValue): \(result.error)"
                )
            }
        }
        if failedRuns.count > Self.failuresNamed {
            printError(
                "bench: \(Self.counted(failedRuns.count - Self.failuresNamed)) more runs failed (rows in corpus.csv)"
            )
        }
        // One counted line per reason, not a line per file: a corpus may hold thousands of them.
        let notMeasured = rows.filter { $0.result == nil }
        for (status, count) in Dictionary(grouping: notMeasured, by: { $0.image.skipStatus ?? "" }).mapValues(\.count)
            .sorted(by: { $0.key < $1.key })
        {
            printError(
                "bench: \(Self.counted(count)) \(Self.notMeasuredWording(status, count: count)) (rows in corpus.csv)"
            )
        }
        let rowCount = earlier.count + newRows.count
        try measurement.end(
            rows: rowCount,
            planned: planned,
            written: written,
            failed: !failedRuns.isEmpty || !notMeasured.isEmpty
        )
    }

    /// The rows of an interrupted run that still describe the corpus: those of a file gone since,
    /// of a file whose bytes changed (their digest), of a file now measured or not measured when it
    /// was the other way, and `changed` rows (never measured) are dropped, each file named on stderr.
    package static func rowsStillCurrent(_ rows: [CorpusCSVRow], images: [CorpusImage]) -> [CorpusCSVRow] {
        let byName = Dictionary(images.map { ($0.entry.name, $0) }, uniquingKeysWith: { first, _ in first })
        var gone: [String: Int] = [:]
        var changed: [String: (rows: Int, then: String, now: String)] = [:]
        let kept = rows.filter { row in
            guard let image = byName[row.name] else {
                gone[row.name, default: 0] += 1
                return false
            }
            let sameBytes =
                row.payloadDigest == nil || image.payloadDigest == nil
                || row.payloadDigest == image.payloadDigest
            if sameBytes && (row.result == nil) == !image.isMeasured && row.result?.status != .changed { return true }
            let then = row.payloadDigest.map { "FNV-1a-64 \($0)" } ?? "not read"
            let now =
                image.payloadDigest.map { "\(image.fileBytes ?? 0) bytes, FNV-1a-64 \($0)" }
                ?? (image.skipStatus ?? "not read")
            changed[row.name, default: (0, then, now)].rows += 1
            return false
        }
        for (name, change) in changed.sorted(by: { $0.key < $1.key }) {
            let rows = "\(counted(change.rows)) earlier row\(change.rows == 1 ? " is" : "s are")"
            printError(
                "corpus: \(name) changed since the interrupted run (\(change.then) then; \(change.now) now): "
                    + "its \(rows) dropped and it is measured again"
            )
        }
        if !gone.isEmpty {
            let names = gone.keys.sorted()
            let shown =
                names.prefix(failuresNamed).joined(separator: ", ")
                + (names.count > failuresNamed ? " and \(names.count - failuresNamed) more" : "")
            let files = "\(counted(names.count)) file\(names.count == 1 ? "" : "s")"
            printError(
                "corpus: \(counted(gone.values.reduce(0, +))) rows of \(files) no longer in the corpus "
                    + "are dropped: \(shown)"
            )
        }
        return kept
    }

    /// Failed runs named one a line on stderr; the rest are counted.
    package static let failuresNamed = 20

    /// 4998 -> "4,998".
    package static func counted(_ count: Int) -> String {
        let digits = Array(String(count))
        return String(
            digits.enumerated().flatMap { index, digit in
                index > 0 && (digits.count - index) % 3 == 0 ? [",", digit] : [digit]
            }
        )
    }

    package static func notMeasuredWording(_ status: String, count: Int) -> String {
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
    package static func rowsDone(in file: URL, runID: String) throws -> [CorpusCSVRow] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        do {
            let (rows, torn) = try CorpusCSV.parse(
                String(decoding: data, as: UTF8.self),
                runID: (runID, RunSettings.fileName)
            )
            if torn { StandardError.write(CSV.tornLineNote(file.path)) }
            return rows
        } catch {
            throw BenchFailure(.badInput, "--resume: \(file.path) cannot be read back: \(error)")
        }
    }
}

extension CorpusMeasurement {
    /// By file, then cell, then run; an image's one unmeasured row has no cell and comes first.
    package static func corpusOrder(_ lhs: CorpusRow, _ rhs: CorpusRow) -> Bool {
        if lhs.image.entry.name != rhs.image.entry.name { return lhs.image.entry.name < rhs.image.entry.name }
        guard let left = lhs.result, let right = rhs.result else { return lhs.result == nil && rhs.result != nil }
        if left.cell != right.cell { return left.cell < right.cell }
        return left.run < right.run
    }
}

/// The corpus's progress line: rows done of the planned, the rate, the time left, failures so far.
package final class CorpusProgress {
    private let line: ProgressLine
    private let total: Int
    private var done: Int

    package init(total: Int, done: Int) {
        self.total = total
        self.done = done
        line = ProgressLine(alreadyDone: done)
    }

    package func show(_ row: CorpusRow) {
        done += 1
        let latest: String
        if let result = row.result {
            let peak =
                result.peakRSSDeltaBytes.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? result.status.rawValue
            latest = "\(row.image.entry.name) \(result.cell) run \(result.run): \(peak)"
        } else {
            latest = "\(row.image.entry.name): \(row.image.skipStatus ?? "")"
        }
        line.show(
            text: "rows",
            index: done,
            total: total,
            latest: latest,
            failed: row.result.map { !$0.isSuccess } ?? false
        )
    }

    package func finish() { line.finish() }
}
