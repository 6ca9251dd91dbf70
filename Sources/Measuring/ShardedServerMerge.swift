import BenchCore
import Foundation
import Report
import Scenarios

/// Joins the folders of `bench scenario image-server --shard i/n`: every shard's rows of server.csv
/// and of the files beside it (requests, holders, residency), each with the merged folder's run id,
/// then server-slopes.csv from all of them. A cell goes whole to one shard, so each slope is fitted
/// from one machine's runs; merge.json names the machines. Every shard is read (`read`) before the
/// merged folder is created.
package enum ShardedServerMerge {
    /// One shard's runs as read back.
    package struct ServerShard: Sendable {
        package var folder: ShardFolder
        package var done: ServerRunFiles.Done

        /// The distinct keys of its rows, for `ShardFolder.incompleteness`.
        package var keys: Set<String> { Set(done.keys) }
        var directory: URL { URL(fileURLWithPath: folder.path, isDirectory: true) }
    }

    package static func read(_ shard: ShardFolder) throws(MergeInputError) -> ServerShard {
        let directory = URL(fileURLWithPath: shard.path, isDirectory: true)
        let file = directory.appendingPathComponent(ServerCSV.fileName)
        // A shard that records its plan and stopped before its first row lacks them all.
        guard FileManager.default.fileExists(atPath: file.path) || shard.record.plannedRows != nil else {
            throw MergeInputError(
                missing: true,
                "\(file.path) does not exist: shard \(shard.record.shard) did not finish writing; measure it again"
            )
        }
        do throws(ServerRunFiles.Failure) {
            return ServerShard(folder: shard, done: try ServerRunFiles.done(in: directory, runID: shard.record.runID))
        } catch {
            throw MergeInputError(missing: false, "shard \(shard.record.shard): \(error)")
        }
    }

    /// Writes the merged files into `folder`; returns the slopes, for the terminal.
    @discardableResult
    package static func merge(_ shards: [ServerShard], into folder: OutputFolder) throws -> [ServerSlope] {
        let runID = folder.runID
        func text(_ header: [String], _ rows: [[String]]) -> Data {
            let lines = [header] + rows.map { Array($0.dropLast()) + [runID] }
            return Data(lines.map { CSV.line($0) + "\n" }.joined().utf8)
        }
        try AtomicFile.writeInFolder(
            text(ServerRunFiles.serverHeader, shards.flatMap(\.done.rows)),
            to: folder.directory.appendingPathComponent(ServerCSV.fileName)
        )
        for file in ServerRunFiles.runFiles {
            var rows: [[String]] = []
            for shard in shards {
                do throws(ServerRunFiles.Failure) {
                    rows += try ServerRunFiles.rows(of: file.name, in: shard.directory, keeping: shard.keys)
                } catch {
                    throw MergeInputError(missing: false, "shard \(shard.folder.record.shard): \(error)")
                }
            }
            try AtomicFile.writeInFolder(
                text(file.header, rows),
                to: folder.directory.appendingPathComponent(file.name)
            )
        }
        let slopes = ServerSlope.of(shards.flatMap(\.done.points))
        try AtomicFile.writeInFolder(
            WrittenColumn.file(ServerSlopesCSV.columns, rows: slopes, runID: runID),
            to: folder.directory.appendingPathComponent(ServerSlopesCSV.fileName)
        )
        return slopes
    }
}
