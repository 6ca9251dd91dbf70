import BenchCore
import Foundation
import Harness
import Report

/// A shard's record in its folder (shard.json): written before the first trial (a shard stopped
/// midway is still named), given its plan when known and its end when it stops, for `bench merge`.
package enum ShardLog {
    /// Writes shard.json with the rows it plans when they are known (`planned`); without a shard,
    /// removes one an earlier sharded run left there (with --replace). Returns the record.
    /// `portion`: the items this shard measures and all of them, said on stderr.
    package static func start(
        _ shard: Shard?,
        _ kind: ShardRecord.Kind,
        in folder: OutputFolder,
        settings: [String: String],
        portion: (chosen: Int, of: Int, items: String),
        corpus: (entries: Int, digest: String)? = nil,
        planned: PlannedKeys? = nil
    ) throws -> ShardRecord? {
        let url = folder.directory.appendingPathComponent(ShardRecord.fileName)
        guard let shard else {
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        var record = ShardRecord(
            kind: kind,
            shard: shard,
            runID: folder.runID,
            settings: settings,
            corpusEntries: corpus?.entries,
            corpusDigest: corpus?.digest
        )
        if let planned { record.plan(planned) }
        try write(record, in: folder)
        printError(
            "shard \(shard): \(portion.chosen) of \(portion.of) \(portion.items); "
                + "`bench merge` joins this folder with the other shards'"
        )
        return record
    }

    /// Writes shard.json again (its plan known, or its end), or fails with 73.
    package static func write(_ record: ShardRecord, in folder: OutputFolder) throws {
        do { try record.write(in: folder.directory) } catch {
            let url = folder.directory.appendingPathComponent(ShardRecord.fileName)
            throw BenchFailure(.cannotCreateOutput, "cannot write \(url.path): \(error)")
        }
    }

    /// Records the shard's end in shard.json: the rows in the folder and how it stopped.
    /// Not when the folder could not be written (its rows are elsewhere: the shard is incomplete).
    package static func end(_ record: ShardRecord?, rows: Int, signal: String?, sink: RescuingWriter) {
        guard var record, sink.failure == nil else { return }
        record.end(completedRows: rows, signal: signal)
        do { try record.write(in: sink.folder.directory) } catch {
            printError(
                "bench: cannot record the shard's end in \(ShardRecord.fileName): \(error); "
                    + "`bench merge` will count its rows"
            )
        }
    }
}
