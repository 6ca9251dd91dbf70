import BenchCore
import Foundation
import Report

/// Joins the folders of `bench corpus --shard i/n`: every shard's corpus.csv rows with a machine
/// column, in the corpus's order, then the ranking (corpus-summary.csv) and the chart's data as
/// one corpus run writes them. Each image is measured in one shard only, so its runs stay together.
/// Every shard is read (`read`) before the merged folder is created.
package enum ShardedCorpusMerge {
    /// One shard's rows as read back.
    package struct CorpusShardRows: Sendable {
        package var folder: ShardFolder
        package var rows: [CorpusRow]

        /// The distinct keys of its rows, for `ShardFolder.incompleteness`.
        package var keys: Set<String> {
            Set(rows.map { PlannedKeys.key(file: $0.image.entry.name, cell: $0.result?.cell, run: $0.result?.run) })
        }
    }

    /// A torn last line (a shard killed while appending it) is dropped with a note: the shard then
    /// lacks that row.
    package static func read(_ shard: ShardFolder) throws(MergeInputError) -> CorpusShardRows {
        let path = URL(fileURLWithPath: shard.path, isDirectory: true).appendingPathComponent(CorpusCSV.fileName).path
        guard let data = FileManager.default.contents(atPath: path) else {
            // A shard that records its plan stopped before its first row: it lacks them all.
            guard shard.record.plannedRows != nil else {
                throw MergeInputError(
                    missing: true,
                    "\(path) does not exist: shard \(shard.record.shard) did not finish writing; measure it again"
                )
            }
            return CorpusShardRows(folder: shard, rows: [])
        }
        let (text, torn) = CSV.completeLines(String(decoding: data, as: UTF8.self))
        if torn { StandardError.write(CSV.tornLineNote(path)) }
        guard !text.isEmpty else { return CorpusShardRows(folder: shard, rows: []) }
        do {
            return CorpusShardRows(folder: shard, rows: try CorpusCSV.corpusRows(text))
        } catch {
            throw MergeInputError(missing: false, "shard \(shard.record.shard): \(path): \(error)")
        }
    }

    /// Returns the ranking table for the terminal.
    package static func merge(_ shards: [CorpusShardRows], into folder: OutputFolder) throws -> String {
        var rows = shards.flatMap { shard in shard.rows.map { (row: $0, machine: shard.folder.record.machine) } }
        rows.sort { inCorpusOrder($0.row, $1.row) }
        let renders = (shards[0].folder.record.settings["--render"] ?? "").split(separator: ",")
            .compactMap { RenderMode(name: String($0)) }
        let runID = folder.runID

        var lines = [CSV.line(CorpusCSV.columns.map(\.name) + ["machine", TrialsCSV.runIDColumn])]
        lines += rows.map { entry in CSV.line(CorpusCSV.columns.map { $0.write(entry.row) } + [entry.machine, runID]) }
        let ranked = rows.map(\.row)
        let rankingRender = CorpusRanking.rankingRender(renders) ?? .full
        let costs = CorpusRanking.rank(ranked, by: rankingRender)
        try AtomicFile.writeInFolder(
            Data((lines.joined(separator: "\n") + "\n").utf8),
            to: folder.directory.appendingPathComponent(CorpusCSV.fileName)
        )
        try AtomicFile.writeInFolder(
            Data(CorpusRanking.csv(costs, renders: renders, runID: runID).utf8),
            to: folder.directory.appendingPathComponent("corpus-summary.csv")
        )
        for file in CorpusChartData.files(costs, renders: renders) {
            try AtomicFile.writeInFolder(
                Data(file.contents.utf8),
                named: "charts/data/" + file.name,
                in: folder.directory
            )
        }
        return CorpusRanking.table(costs, renders: renders, rankedBy: rankingRender)
    }

    /// By file, then cell, then run; an image's one unmeasured row has no cell and comes first
    /// (the order `bench corpus` writes).
    package static func inCorpusOrder(_ lhs: CorpusRow, _ rhs: CorpusRow) -> Bool {
        if lhs.image.entry.name != rhs.image.entry.name { return lhs.image.entry.name < rhs.image.entry.name }
        guard let left = lhs.result, let right = rhs.result else { return lhs.result == nil && rhs.result != nil }
        if left.cell != right.cell { return left.cell < right.cell }
        return left.run < right.run
    }
}
