import BenchCore
import Foundation

/// Joins the folders of `bench run --shard i/n`: every shard's trials (rebuilt from the files its
/// run appends: rows, samples, holders) written as one run's files, trials.csv with a machine
/// column, holders.csv with every shard's holders, then REPORT.md and the chart data as
/// `bench report` makes them. Every shard is read (`read`) before the merged folder is created.
package enum ShardedRunMerge {
    /// One shard's trials as read back, with its trials.json's context and its environment.txt.
    package struct RunShard: Sendable {
        package var folder: ShardFolder
        package var trials: [TrialResult]
        package var context: RunContext?
        package var environment: String?

        /// The distinct keys of its rows, for `ShardFolder.incompleteness`.
        package var keys: Set<String> { Set(trials.map { PlannedKeys.key(cell: $0.cell, run: $0.run) }) }
    }

    package static func read(_ shard: ShardFolder) throws(MergeInputError) -> RunShard {
        let directory = URL(fileURLWithPath: shard.path, isDirectory: true)
        let source = ResultsWriter(directory: directory)
        // A shard that records its plan and has no trials.csv stopped before its first row: it lacks them all.
        guard FileManager.default.fileExists(atPath: source.trialsCSV.path) || shard.record.plannedRows != nil else {
            throw MergeInputError(
                missing: true,
                "\(source.trialsCSV.path) does not exist: shard \(shard.record.shard) "
                    + "did not finish writing; measure it again"
            )
        }
        var result = RunShard(folder: shard, trials: [], context: nil, environment: nil)
        do {
            let threshold = shard.record.settings["--holder-threshold"].flatMap { Int($0) }
            result.trials = try RunFiles.load(
                directory,
                runID: shard.record.runID,
                runIDSource: ShardRecord.fileName,
                holderThresholdBytes: threshold
            )
            // A shard that drew no cell has rows of no run to check.
            if !result.trials.isEmpty { try RunConsistency.check(source) }
        } catch {
            throw MergeInputError(missing: false, "shard \(shard.record.shard): \(error)")
        }
        if let data = FileManager.default.contents(atPath: source.trialsJSON.path),
            let export = try? JSONDecoder.trials.decode(JSONExport.self, from: data),
            export.context.runID == shard.record.runID
        {
            result.context = export.context
        }
        result.environment = try? String(contentsOf: source.environmentText, encoding: .utf8)
        return result
    }

    package static func merge(_ shards: [RunShard], into folder: OutputFolder, command: String) throws {
        let rows = shards.flatMap { shard in shard.trials.map { (result: $0, machine: shard.folder.record.machine) } }
            .sorted { ($0.result.cell, $0.result.run) < ($1.result.cell, $1.result.run) }
        let results = rows.map(\.result)

        var context = shards.lazy.compactMap(\.context).first ?? Self.context(of: shards[0].folder.record)
        context.command = command
        context.date = Date()
        var machines: [String] = []
        for machine in shards.map(\.folder.record.machine) where !machines.contains(machine) {
            machines.append(machine)
        }
        context.host = machines.joined(separator: ", ")
        context.plannedRuns = shards.reduce(0) { total, shard in
            total + (shard.folder.record.plannedRows ?? shard.context?.plannedRuns ?? shard.trials.count)
        }
        context.completedRuns = results.count
        context.interruptedBy =
            shards.lazy.compactMap { shard in
                shard.folder.record.ended.flatMap { $0 == ShardRecord.finished ? nil : $0 }
                    ?? shard.context?.interruptedBy
            }.first
        context.payloadBytes = results.compactMap(\.payloadBytes).max() ?? context.payloadBytes
        context.shard = nil

        let writer = ResultsWriter(directory: folder.directory, runID: folder.runID)
        try writer.writeAll(results, context: context)
        // trials.csv once more, each row with the machine that measured it (before run_id, by name).
        var lines = [CSV.line(TrialsCSV.columns.map(\.name) + ["machine", TrialsCSV.runIDColumn])]
        lines += rows.map { row in
            CSV.line(TrialsCSV.columns.map { $0.write(row.result) } + [row.machine, folder.runID])
        }
        try AtomicFile.writeInFolder(Data((lines.joined(separator: "\n") + "\n").utf8), to: writer.trialsCSV)
        let shardLine = shards.map { "shard \($0.folder.record.shard) \($0.folder.record.machine)" }
            .joined(separator: ", ")
        let environment = shards.lazy.compactMap(\.environment).first ?? MachineEnvironment.describe(context.provenance)
        try AtomicFile.writeInFolder(
            Data((environment + "machines:      \(shardLine)\n").utf8),
            to: writer.environmentText
        )

        // What `bench report` writes for one run's folder.
        let report = RunFolderReport(directory: folder.directory)
        let figures = try report.load()
        try RunFolderReport.update(
            at: folder.directory.appendingPathComponent("REPORT.md"),
            blocks: figures.blocks(),
            values: [:]
        )
        _ = try RunFolderReport.writeChartData(
            RunFolderReport.chartFiles(figures, holders: try report.holdersChart()),
            to: folder.directory.appendingPathComponent("charts/data", isDirectory: true)
        )
    }

    /// The context of shards none of which wrote a trials.json (killed, merged with --partial),
    /// from what shard.json records.
    static func context(of record: ShardRecord) -> RunContext {
        let url = record.settings["--url"].flatMap { $0.isEmpty ? nil : $0 }
        let micros = record.settings["--sample-interval-us"].flatMap { UInt64($0) } ?? 0
        return RunContext(
            command: "",
            source: RunContext.source(url: url, fixture: record.settings["fixture"] ?? ""),
            payloadBytes: nil,
            runsPerCell: record.settings["--runs"].flatMap { Int($0) } ?? 0,
            sampleIntervalNanos: micros * 1000
        )
    }
}
