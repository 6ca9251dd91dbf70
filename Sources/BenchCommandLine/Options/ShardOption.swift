import ArgumentParser
import BenchCore
import Foundation
import Harness
import Report

/// `--shard i/n` on run and corpus: measure only this machine's part of the work, and record it
/// (shard.json) for `bench merge`.
struct ShardOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Measure only part i of n (i counts from 1: 1/4 ... 4/4), for splitting the work over machines; "
        + "`bench merge` joins the folders. A corpus splits by each file's bytes, a matrix by each cell's name: "
        + "the same parts on every machine, every item in exactly one part.",
        valueName: "i/n"), transform: { try ShardOption.parse($0) })
    var shard: Shard?

    static func parse(_ text: String) throws -> Shard {
        guard let shard = Shard(text) else { throw ValidationError("\(Shard.usage); got '\(text)'") }
        return shard
    }

    /// Writes shard.json into the run's folder before the first trial (a shard stopped midway is
    /// still named), with the rows it plans when they are known (`planned`); without --shard,
    /// removes one an earlier sharded run left there (with --replace). Returns the record, to be
    /// given the plan (`planned`) and the end (`end`) later.
    /// `portion`: the items this shard measures and all of them, said on stderr.
    func record(_ kind: ShardRecord.Kind, in folder: OutputFolder, settings: [String: String],
                portion: (chosen: Int, of: Int, items: String), corpus: (entries: Int, digest: String)? = nil,
                planned: PlannedKeys? = nil) throws -> ShardRecord? {
        let url = folder.directory.appendingPathComponent(ShardRecord.fileName)
        guard let shard else {
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        var record = ShardRecord(kind: kind, shard: shard, runID: folder.runID, settings: settings,
                                 corpusEntries: corpus?.entries, corpusDigest: corpus?.digest)
        if let planned { record.plan(planned) }
        try Self.write(record, in: folder)
        printError("shard \(shard): \(portion.chosen) of \(portion.of) \(portion.items); "
                   + "`bench merge` joins this folder with the other shards'")
        return record
    }

    /// Writes shard.json again (its plan known, or its end), or exits 73.
    static func write(_ record: ShardRecord, in folder: OutputFolder) throws {
        do { try record.write(in: folder.directory) } catch {
            let url = folder.directory.appendingPathComponent(ShardRecord.fileName)
            throw BenchFailure(.cannotCreateOutput, "cannot write \(url.path): \(error)").reported()
        }
    }

    /// Records the shard's end in shard.json: the rows in the folder and how it stopped.
    /// Not when the folder could not be written (its rows are elsewhere: the shard is incomplete).
    static func end(_ record: ShardRecord?, rows: Int, sink: RescuingWriter) {
        guard var record, sink.failure == nil else { return }
        record.end(completedRows: rows, signal: Interruption.signalName)
        do { try record.write(in: sink.folder.directory) } catch {
            printError("bench: cannot record the shard's end in \(ShardRecord.fileName): \(error); "
                       + "`bench merge` will count its rows")
        }
    }

    /// The options that change what a trial measures, by their names: shards merged must agree on all.
    /// --jobs is not one (peaks do not depend on it, and machines differ in cores).
    static func settings(_ plan: BenchmarkPlan, _ settings: TrialSettings) -> [String: String] {
        [
            "--strategy": plan.strategies.joined(separator: ","),
            "--render": plan.renders.map(\.rawValue).joined(separator: ","),
            "--allocator": plan.allocators.map(\.rawValue).joined(separator: ","),
            "--runs": String(plan.runs),
            "--max-pixel": String(settings.maxPixel),
            "--max-image-pixels": String(settings.maxImagePixels),
            "--sample-interval-us": String(settings.sampleIntervalNanos / 1000),
            "--timeout": String(settings.timeoutSeconds),
            "--holder-threshold": String(settings.holderThresholdBytes),
        ]
    }
}
