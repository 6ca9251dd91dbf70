import BenchCore
import Foundation

/// Joins the folders of `bench run --shard i/n`: every shard's trials (from trials.json, holders
/// included) and timelines, written as one run's files, trials.csv with a machine column, then
/// REPORT.md and the chart data as `bench report` makes them.
package enum ShardedRunMerge {
    package static func merge(_ shards: [ShardFolder], into folder: OutputFolder, command: String) throws {
        var rows: [(result: TrialResult, machine: String)] = []
        var origins: [String] = []
        var first: RunContext?
        var planned = 0, completed = 0
        var interruptedBy: String?
        var environment: String?
        for shard in shards {
            let directory = URL(fileURLWithPath: shard.path, isDirectory: true)
            let source = ResultsWriter(directory: directory)
            guard let data = FileManager.default.contents(atPath: source.trialsJSON.path) else {
                throw MergeInputError(missing: true, "\(source.trialsJSON.path) does not exist: shard \(shard.record.shard) did not finish writing; measure it again")
            }
            var export: JSONExport
            do {
                export = try JSONDecoder.trials.decode(JSONExport.self, from: data)
                // A shard that drew no cell has rows of no run to check.
                if !export.trials.isEmpty { try RunConsistency.check(source) }
            } catch {
                throw MergeInputError(missing: false, "shard \(shard.record.shard): \(source.trialsJSON.path): \(error)")
            }
            if let text = try? String(contentsOf: source.timelineCSV, encoding: .utf8) {
                let keys = Set(export.trials.map { RunKey(cell: $0.cell, run: $0.run) })
                let points: [RunKey: [TimelinePoint]]
                do { points = try TimelineCSV.parse(text, keep: keys) } catch {
                    throw MergeInputError(missing: false, "shard \(shard.record.shard): \(source.timelineCSV.path): \(error)")
                }
                for index in export.trials.indices {
                    export.trials[index].timeline = points[RunKey(cell: export.trials[index].cell, run: export.trials[index].run)] ?? []
                }
            }
            rows += export.trials.map { ($0, shard.record.machine) }
            origins += export.trials.indices.map { "\(source.trialsJSON.path) trial \($0 + 1)" }
            first = first ?? export.context
            planned += export.context.plannedRuns ?? export.trials.count
            completed += export.context.completedRuns ?? export.trials.count
            interruptedBy = interruptedBy ?? export.context.interruptedBy
            environment = environment ?? (try? String(contentsOf: source.environmentText, encoding: .utf8))
        }
        // Overlapping shards (or a row copied within one) would count a run twice.
        do { try TrialsCSV.checkKeys(rows.map(\.result)) { origins[$0] } } catch {
            throw MergeInputError(missing: false, "cannot merge: \(error)")
        }
        rows.sort { ($0.result.cell, $0.result.run) < ($1.result.cell, $1.result.run) }
        let results = rows.map(\.result)

        var context = first!
        context.command = command
        context.date = Date()
        var machines: [String] = []
        for shard in shards where !machines.contains(shard.record.machine) { machines.append(shard.record.machine) }
        context.host = machines.joined(separator: ", ")
        context.plannedRuns = planned
        context.completedRuns = completed
        context.interruptedBy = interruptedBy
        context.shard = nil

        let writer = ResultsWriter(directory: folder.directory, runID: folder.runID)
        try writer.writeAll(results, context: context)
        // trials.csv once more, each row with the machine that measured it (before run_id, by name).
        var lines = [CSV.line(TrialsCSV.columns.map(\.name) + ["machine", TrialsCSV.runIDColumn])]
        lines += rows.map { row in CSV.line(TrialsCSV.columns.map { $0.value(row.result) } + [row.machine, folder.runID]) }
        try AtomicFile.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: writer.trialsCSV)
        let shardLine = shards.map { "shard \($0.record.shard) \($0.record.machine)" }.joined(separator: ", ")
        try AtomicFile.write(Data(((environment ?? MachineEnvironment.describe()) + "machines:      \(shardLine)\n").utf8),
                             to: writer.environmentText)

        // What `bench report` writes for one run's folder.
        let report = RunFolderReport(directory: folder.directory)
        let figures = try report.load()
        try RunFolderReport.update(at: folder.directory.appendingPathComponent("REPORT.md"), blocks: figures.blocks(), values: [:])
        _ = try RunFolderReport.writeChartData(RunFolderReport.chartFiles(figures, holders: try report.holdersChart()),
                                               to: folder.directory.appendingPathComponent("charts/data", isDirectory: true))
    }
}
