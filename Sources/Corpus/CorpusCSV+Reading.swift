import BenchCore
import Foundation
import Harness

/// A row of a corpus.csv read back: the file it is about, its run (nil for an image's one
/// unmeasured row), and the line as written, kept byte for byte when the file is rewritten.
package struct CorpusCSVRow: Sendable {
    package var name: String
    /// The run's figures as far as corpus.csv holds them: status, error, pid, payload, the peak
    /// RSS and exact heap deltas (as peaks over a zero baseline), final RSS and duration.
    package var result: TrialResult?
    package var line: String
    /// The digest of the bytes the row was measured from (`CorpusImage.payloadDigest`); nil in
    /// files of older versions.
    package var payloadDigest: String?

    package var key: CorpusRowKey { CorpusRowKey(name: name, cell: result?.cell, run: result?.run) }
}

/// What a corpus row is a row of: a file, and a cell and run (none for an unmeasured row).
package struct CorpusRowKey: Hashable, Sendable, Comparable {
    package var name: String
    package var cell: TrialCell?
    package var run: Int?

    package init(name: String, cell: TrialCell?, run: Int?) {
        self.name = name
        self.cell = cell
        self.run = run
    }

    /// By file, then cell, then run; a file's unmeasured row comes first.
    package static func < (lhs: CorpusRowKey, rhs: CorpusRowKey) -> Bool {
        if lhs.name != rhs.name { return lhs.name < rhs.name }
        guard let left = lhs.cell, let right = rhs.cell else { return lhs.cell == nil && rhs.cell != nil }
        if left != right { return left < right }
        return (lhs.run ?? 0) < (rhs.run ?? 0)
    }
}

extension CorpusCSV {
    package static var header: [String] { columns.map(\.name) + [TrialsCSV.runIDColumn] }

    /// One row as a CSV line, with its newline: what is appended as soon as the run ends.
    package static func line(_ row: CorpusRow, runID: String) -> String {
        CSV.line(columns.map { $0.write(row) } + [runID]) + "\n"
    }

    /// Reads a corpus.csv (an interrupted run's: its torn last line, if any, is dropped and
    /// `droppedTornLine` says so). Throws on a file that is not a corpus.csv, naming the line, and
    /// on a key twice or a row of another run than `runID` (default: the first row's).
    package static func parse(
        _ text: String,
        runID: (id: String, source: String)? = nil
    ) throws
        -> (rows: [CorpusCSVRow], droppedTornLine: Bool)
    {
        let (complete, torn) = CSV.completeLines(text)
        let table = try CSV.parse(complete)
        guard let head = table.first else { return ([], torn) }
        let index = Dictionary(head.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = ["file", "strategy", "render", "allocator", "run", "status"].filter { index[$0] == nil }
        guard missing.isEmpty else {
            throw CSVError("not a corpus.csv: missing column(s) \(missing.joined(separator: ", "))")
        }
        var rows: [CorpusCSVRow] = []
        rows.reserveCapacity(table.count)
        var keys = RowKeyCheck(key: keyColumns, header: head, runID: runID)
        for (offset, fields) in table.dropFirst().enumerated() {
            let lineNumber = offset + 2
            if fields.count == 1 && fields[0].isEmpty { continue }
            guard fields.count == head.count else {
                throw CSVError("line \(lineNumber): \(fields.count) fields, the header has \(head.count)")
            }
            try keys.admit(fields, line: lineNumber)
            func field(_ name: String) -> String { index[name].map { fields[$0] } ?? "" }
            func integer(_ name: String) throws -> Int? {
                let text = field(name)
                guard !text.isEmpty else { return nil }
                guard let value = Int(text) else {
                    throw CSVError("line \(lineNumber): \(name) '\(text)' is not an integer")
                }
                return value
            }
            let digest = field(payloadDigestColumn)
            var row = CorpusCSVRow(
                name: field("file"),
                result: nil,
                line: CSV.line(fields) + "\n",
                payloadDigest: digest.isEmpty ? nil : digest
            )
            if !field("strategy").isEmpty {
                guard let render = RenderMode(name: field("render")),
                    let allocator = Allocator(rawValue: field("allocator")),
                    let run = try integer("run"), let status = TrialStatus(rawValue: field("status"))
                else {
                    throw CSVError("line \(lineNumber): render, allocator, run or status is not one bench writes")
                }
                let cell = TrialCell(strategy: field("strategy"), render: render, allocator: allocator)
                var result = TrialResult(cell: cell, run: run, pid: Int32(clamping: try integer("pid") ?? 0))
                result.status = status
                result.error = field("error")
                result.payloadBytes = try integer("payload_bytes")
                if let delta = try integer("peak_rss_delta_bytes") {
                    result.baselineRSSBytes = 0
                    result.peakRSSBytes = delta
                }
                if let delta = try integer("peak_heap_exact_delta_bytes") {
                    result.baselineHeapExactBytes = 0
                    result.peakHeapExactBytes = delta
                }
                result.finalRSSBytes = try integer("final_rss_bytes")
                result.floorBytes = try integer("floor_bytes")
                result.durationSeconds = Double(field("duration_s"))
                row.result = result
            }
            rows.append(row)
        }
        return (rows, torn)
    }
}
