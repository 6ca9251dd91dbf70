import Foundation

extension TrialsCSV {
    /// Reads rows written by `render` (or by an older version with fewer columns) back into results.
    /// The columns are found by name; strategy, render, allocator, run and status are required, and
    /// so are baseline_rss_bytes and peak_rss_bytes (a corpus.csv has the others but no peaks).
    /// A figure no run can have (`TrialResult.impossibleFigure`) is refused with its line and column.
    /// Timelines are not in trials.csv and come back empty. A row whose `key` an earlier row has,
    /// or of another run than `runID` (default: the first row's), is refused (`KeyedRowError`).
    package static func parse(
        _ text: String,
        key: [String] = keyColumns,
        runID: (id: String, source: String)? = nil
    ) throws -> [TrialResult] {
        let rows = try CSV.parse(text)
        guard let header = rows.first, !header.isEmpty else { throw CSVError("empty file: no header row") }
        let index = Dictionary(header.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let required = ["strategy", "render", "allocator", "run", "status", "baseline_rss_bytes", "peak_rss_bytes"]
        let missing = required.filter { index[$0] == nil }
        guard missing.isEmpty else {
            throw CSVError(
                "not a trials.csv: missing column(s) \(missing.joined(separator: ", ")); found \(header.joined(separator: ","))"
            )
        }

        var keys = RowKeyCheck(key: key, header: header, runID: runID)
        return try rows.dropFirst().enumerated().compactMap { offset, fields throws -> TrialResult? in
            let line = offset + 2
            if fields.count == 1 && fields[0].isEmpty { return nil }  // blank line
            guard fields.count == header.count else {
                throw CSVError("line \(line): \(fields.count) fields, the header has \(header.count)")
            }
            try keys.admit(fields, line: line)
            func field(_ name: String) -> String? { index[name].map { fields[$0] } }
            func integer(_ name: String) throws -> Int? {
                guard let text = field(name), !text.isEmpty else { return nil }
                guard let value = Int(text) else { throw CSVError("line \(line): \(name) '\(text)' is not an integer") }
                return value
            }
            func choice<T: RawRepresentable>(_ name: String, _ type: T.Type) throws -> T where T.RawValue == String {
                let text = field(name) ?? ""
                guard let value = T(rawValue: text) else { throw CSVError("line \(line): unknown \(name) '\(text)'") }
                return value
            }

            func renderer() throws -> RenderMode {
                let text = field("render") ?? ""
                guard let render = RenderMode(name: text) else {
                    throw CSVError("line \(line): unknown render '\(text)'")
                }
                return render
            }

            guard let run = try integer("run") else { throw CSVError("line \(line): run is empty") }
            let cell = TrialCell(
                strategy: field("strategy") ?? "",
                render: try renderer(),
                allocator: try choice("allocator", Allocator.self)
            )
            let pid = try integer("pid") ?? 0
            guard let processID = Int32(exactly: pid) else {
                throw CSVError("line \(line): pid '\(pid)' is not a process id")
            }
            var result = TrialResult(cell: cell, run: run, pid: processID)
            result.status = try choice("status", TrialStatus.self)
            result.error = field("error") ?? ""
            for column in columns {
                guard let read = column.read, let text = field(column.name), !text.isEmpty else { continue }
                do {
                    try read(&result, text)
                } catch let error as ResultCellError {
                    throw CSVError("line \(line): \(column.name) '\(text)' is not \(error.expected)")
                }
            }
            // Older files without baseline_allocated_bytes still give the delta through the two columns they have.
            if result.baselineAllocatedBytes == nil, let peak = result.peakAllocatedBytes,
                let delta = try integer("peak_allocated_delta_bytes")
            {
                result.baselineAllocatedBytes = peak - delta
            }
            if let impossible = result.impossibleFigure { throw CSVError("line \(line): \(impossible)") }
            return result
        }
    }
}
