import BenchCore
import Foundation

/// The fixture one sweep step measured: the payload size aimed at and the image that gives it.
package struct SweepStep: Sendable, Equatable {
    package var targetBytes: Int
    package var width: Int
    package var height: Int

    package init(targetBytes: Int, width: Int, height: Int) {
        self.targetBytes = targetBytes
        self.width = width
        self.height = height
    }
}

/// `sweep.csv`: trials.csv's columns for every run of every size, after three columns that say
/// which fixture the run fetched. Reading it back finds trials.csv's columns by name as usual.
package enum SweepCSV {
    package static let fileName = "sweep.csv"
    package static let stepColumns = ["target_bytes", "fixture_width", "fixture_height"]
    /// A row's key: its size, cell and run (`RowKeyCheck`); the fixture follows from the size.
    package static let keyColumns = ["target_bytes"] + TrialsCSV.keyColumns

    package static func render(_ rows: [(step: SweepStep, result: TrialResult)], runID: String? = nil) -> String {
        let trials = TrialsCSV.render(rows.map(\.result), runID: runID).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        var lines = [CSV.line(stepColumns) + "," + trials[0]]
        for (offset, row) in rows.enumerated() {
            let step = [row.step.targetBytes, row.step.width, row.step.height].map(String.init)
            lines.append(CSV.line(step) + "," + trials[offset + 1])
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `runID`: the run every row must be of (a resumed folder's), else the first row's.
    package static func parse(
        _ text: String,
        runID: (id: String, source: String)? = nil
    ) throws
        -> [(step: SweepStep, result: TrialResult)]
    {
        let results = try TrialsCSV.parse(text, key: keyColumns, runID: runID)
        let rows = try CSV.parse(text).filter { !($0.count == 1 && $0[0].isEmpty) }
        let header = rows[0]
        let columns = try stepColumns.map { name -> Int in
            guard let index = header.firstIndex(of: name) else {
                throw CSVError("not a sweep.csv: missing column \(name); found \(header.joined(separator: ","))")
            }
            return index
        }
        return try zip(rows.dropFirst(), results).enumerated().map { offset, pair in
            let values = try columns.map { column -> Int in
                guard let value = Int(pair.0[column]) else {
                    throw CSVError("line \(offset + 2): \(header[column]) '\(pair.0[column])' is not an integer")
                }
                return value
            }
            return (SweepStep(targetBytes: values[0], width: values[1], height: values[2]), pair.1)
        }
    }
}
