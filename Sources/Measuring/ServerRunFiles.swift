import BenchCore
import Foundation
import Report
import Scenarios

/// An image-server folder's appended files read back: the runs server.csv holds and, in the files
/// beside it, the rows of those runs only. What `--resume` goes on from and `bench merge` joins.
///
/// A run appends its requests, holders and residency first and its server.csv row last, so a run
/// is done once its row is there; a run killed before that has rows in the other files only, which
/// are dropped before it is measured again.
package enum ServerRunFiles {
    /// The files a run appends to before its server.csv row, with their headers.
    package static let runFiles: [(name: String, header: [String])] = [
        (RequestsCSV.fileName, WrittenColumn.header(RequestsCSV.columns, runID: true)),
        (ServerHoldersCSV.fileName, WrittenColumn.header(ServerHoldersCSV.columns, runID: true)),
        (ServerResidencyCSV.fileName, WrittenColumn.header(ServerResidencyCSV.columns, runID: true)),
    ]
    package static let serverHeader = WrittenColumn.header(ServerCSV.columns, runID: true)

    /// A run's key: its values of server.csv's key columns (its cell and run), as written.
    package static func key(_ result: ServerResult) -> String {
        ServerCSV.keyColumns.map { name in ServerCSV.column(named: name)!.write(result) }.joined(separator: "/")
    }

    /// The runs server.csv holds, in its order.
    package struct Done: Sendable {
        package var keys: [String] = []
        /// The ok runs, for the slopes.
        package var points: [ServerPoint] = []
        /// Rows of runs that failed (they are done: a resumed run does not measure them again).
        package var failed = 0
        /// server.csv's complete rows, as read.
        package var rows: [[String]] = []

        package init() {}
    }

    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    /// The complete rows of one of the files (nil when it is missing), its header checked: a torn
    /// last line (a run killed while appending it) is dropped, said on stderr.
    static func rows(of file: URL, header: [String]) throws(Failure) -> [[String]]? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let (text, torn) = CSV.completeLines(String(decoding: data, as: UTF8.self))
        if torn { StandardError.write(CSV.tornLineNote(file.path)) }
        let table: [[String]]
        do { table = try CSV.parse(text).filter { $0 != [""] } } catch {
            throw Failure("\(file.path) is not readable CSV: \(error)")
        }
        guard let first = table.first else { return [] }
        guard first == header else {
            throw Failure(
                "\(file.path) has other columns than this bench writes (\(header.count) columns: "
                    + "\(header.prefix(4).joined(separator: ",")),...): written by another version; measure it again"
            )
        }
        return Array(table.dropFirst())
    }

    /// The key of a row of a file whose header is `header` (every file's holds the key columns).
    static func key(_ row: [String], header: [String]) -> String {
        ServerCSV.keyColumns.map { name in header.firstIndex(of: name).flatMap { $0 < row.count ? row[$0] : nil } ?? ""
        }
        .joined(separator: "/")
    }

    /// The runs the folder's server.csv holds; every row must be of `runID` and each run there once.
    package static func done(in folder: URL, runID: String?) throws(Failure) -> Done {
        let file = folder.appendingPathComponent(ServerCSV.fileName)
        var done = Done()
        guard let rows = try rows(of: file, header: serverHeader) else { return done }
        let runIDIndex = serverHeader.count - 1
        let statusIndex = serverHeader.firstIndex(of: "status")!
        var seen = Set<String>()
        for (offset, row) in rows.enumerated() {
            let line = offset + 2
            guard row.count == serverHeader.count else {
                throw Failure("\(file.path) line \(line): \(row.count) fields, not \(serverHeader.count)")
            }
            if let runID, row[runIDIndex] != runID {
                throw Failure(
                    "\(file.path) line \(line): a row of run \(row[runIDIndex]), not of \(runID) (settings.json's): "
                        + "rows of two runs"
                )
            }
            let key = key(row, header: serverHeader)
            guard seen.insert(key).inserted else {
                throw Failure("\(file.path) line \(line): the run \(key) is there twice")
            }
            done.keys.append(key)
            if row[statusIndex] != TrialStatus.ok.rawValue { done.failed += 1 }
            if let point = ServerPoint(row: Dictionary(zip(serverHeader, row), uniquingKeysWith: { first, _ in first }))
            {
                done.points.append(point)
            }
            done.rows.append(row)
        }
        return done
    }

    /// The rows of the runs in `keys` of one of the files beside server.csv (all of them when it is
    /// missing: none).
    package static func rows(of name: String, in folder: URL, keeping keys: Set<String>) throws(Failure) -> [[String]] {
        guard let header = runFiles.first(where: { $0.name == name })?.header else { return [] }
        let rows = try rows(of: folder.appendingPathComponent(name), header: header) ?? []
        return rows.filter { keys.contains(key($0, header: header)) }
    }

    /// Drops from the files beside server.csv the rows of runs it lacks (and a torn last line):
    /// before a resumed run appends to them.
    package static func dropRunsNotIn(_ keys: Set<String>, in folder: URL) throws(Failure) {
        for file in runFiles {
            let url = folder.appendingPathComponent(file.name)
            guard let rows = try rows(of: url, header: file.header) else { continue }
            let kept = rows.filter { keys.contains(key($0, header: file.header)) }
            // A torn last line alone is left to `AppendedRows.reopen`, which cuts it.
            guard kept.count < rows.count else { continue }
            let text = ([file.header] + kept).map { CSV.line($0) + "\n" }.joined()
            do { try AtomicFile.writeInFolder(Data(text.utf8), to: url) } catch {
                throw Failure("cannot rewrite \(url.path): \(error)")
            }
        }
    }
}
