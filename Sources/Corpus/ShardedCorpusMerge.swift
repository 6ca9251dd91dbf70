import BenchCore
import Foundation
import Report

/// Joins the folders of `bench corpus --shard i/n`: every shard's corpus.csv rows with a machine
/// column, in the corpus's order, then the ranking (corpus-summary.csv) and the chart's data as
/// one corpus run writes them. Each image is measured in one shard only, so its runs stay together.
package enum ShardedCorpusMerge {
    /// Returns the ranking table for the terminal.
    package static func merge(_ shards: [ShardFolder], into folder: OutputFolder) throws -> String {
        var rows: [(row: CorpusRow, machine: String)] = []
        var shardOf: [CorpusRowKey: String] = [:]
        for shard in shards {
            let path = URL(fileURLWithPath: shard.path, isDirectory: true).appendingPathComponent("corpus.csv").path
            let firstOfShard = rows.endIndex
            guard let data = FileManager.default.contents(atPath: path) else {
                throw MergeInputError(missing: true, "\(path) does not exist: shard \(shard.record.shard) did not finish writing; measure it again")
            }
            do {
                rows += try CorpusCSV.corpusRows(String(decoding: data, as: UTF8.self)).map { ($0, shard.record.machine) }
            } catch {
                throw MergeInputError(missing: false, "shard \(shard.record.shard): \(path): \(error)")
            }
            // Overlapping shards would count a file's runs twice: each key in one shard only.
            for (row, _) in rows[firstOfShard...] {
                let key = CorpusRowKey(name: row.image.entry.name, cell: row.result?.cell, run: row.result?.run)
                if let other = shardOf[key] {
                    let run = row.result.map { "\($0.cell) run \($0.run)" } ?? "(its row)"
                    throw MergeInputError(missing: false, "cannot merge: \(path) and shard \(other)'s corpus.csv "
                                          + "both hold \(row.image.entry.name) \(run): the shards overlap, "
                                          + "so a run would count twice")
                }
                shardOf[key] = shard.record.shard
            }
        }
        rows.sort { inCorpusOrder($0.row, $1.row) }
        let renders = (shards[0].record.settings["--render"] ?? "").split(separator: ",").compactMap { RenderMode(name: String($0)) }
        let runID = folder.runID

        var lines = [CSV.line(CorpusCSV.columns.map(\.name) + ["machine", TrialsCSV.runIDColumn])]
        lines += rows.map { entry in CSV.line(CorpusCSV.columns.map { $0.value(entry.row) } + [entry.machine, runID]) }
        let ranked = rows.map(\.row)
        let rankingRender = CorpusRanking.rankingRender(renders) ?? .full
        let costs = CorpusRanking.rank(ranked, by: rankingRender)
        try AtomicFile.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: folder.directory.appendingPathComponent("corpus.csv"))
        try AtomicFile.write(Data(CorpusRanking.csv(costs, renders: renders, runID: runID).utf8),
                             to: folder.directory.appendingPathComponent("corpus-summary.csv"))
        let charts = folder.directory.appendingPathComponent("charts/data", isDirectory: true)
        try FileManager.default.createDirectory(at: charts, withIntermediateDirectories: true)
        for file in CorpusChartData.files(costs, renders: renders) {
            try AtomicFile.write(Data(file.contents.utf8), to: charts.appendingPathComponent(file.name))
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
