import Foundation

/// A row that a per-run file must not hold: a second row with a key an earlier row has (the same
/// cell and run measured twice), or a row of another run than the file's (its run_id). Readers
/// refuse the file (exit 65) rather than count a run twice or mix two runs.
package struct KeyedRowError: Error, CustomStringConvertible, Equatable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// What names a row of a per-run file (trials.csv: the cell and the run; corpus.csv: the file too;
/// sweep.csv: the size too), and the check every reader of such a file makes as it reads.
package struct RowKeyCheck {
    private let names: [String]
    private let indices: [Int]
    private let runIDIndex: Int?
    /// The run every row must be of, and where that was learnt ("line 2", "settings.json").
    private var runID: (id: String, source: String)?
    private var seen: [[String]: Int] = [:]

    /// `key`: the key's columns (missing ones are left out: files of older versions);
    /// `runID`: the run the rows must be of when the caller knows it (a resumed folder's), else
    /// the first row's.
    package init(key: [String], header: [String], runID: (id: String, source: String)? = nil) {
        let present = key.filter { header.contains($0) }
        names = present
        indices = present.compactMap { header.firstIndex(of: $0) }
        runIDIndex = header.firstIndex(of: TrialsCSV.runIDColumn)
        self.runID = runID
    }

    /// Admits the row on `line`, or throws naming the line, its key and what it clashes with.
    package mutating func admit(_ fields: [String], line: Int) throws(KeyedRowError) {
        // A number is compared by its value, as the readers count it: "01" and "+1" are run 1.
        let key = indices.map { $0 < fields.count ? (Int(fields[$0]).map(String.init) ?? fields[$0]) : "" }
        if let column = runIDIndex, column < fields.count {
            let id = fields[column]
            if let expected = runID, expected.id != id {
                throw KeyedRowError(
                    "line \(line) (\(Self.describe(names, key))) is a row of run "
                        + "\(id.isEmpty ? "(none)" : id), but \(expected.source) says run \(expected.id): "
                        + "rows of another run were added to this file; keep each run's rows in its own "
                        + "folder, or measure again"
                )
            }
            if runID == nil { runID = (id, "line \(line)") }
        }
        if let first = seen[key] {
            throw KeyedRowError(
                "line \(line) repeats the key of line \(first) (\(Self.describe(names, key))): "
                    + "a file has one row for each \(Self.list(names)); a row was copied or files were "
                    + "joined, so a run would count twice; remove the extra row or measure again"
            )
        }
        seen[key] = line
    }

    /// "strategy, render, allocator and run".
    static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    /// "strategy data, render none, allocator system, run 2".
    package static func describe(_ names: [String], _ values: [String]) -> String {
        zip(names, values).map { "\($0) \($1.isEmpty ? "(empty)" : $1)" }.joined(separator: ", ")
    }
}

extension TrialsCSV {
    /// The first two trials of `trials` (trials.json's, or a merge's) with one key, as an error
    /// naming them by their 1-based position in `source`.
    package static func checkKeys(_ trials: [TrialResult], source: (Int) -> String) throws(KeyedRowError) {
        var seen: [RunKey: Int] = [:]
        for (index, trial) in trials.enumerated() {
            let key = RunKey(cell: trial.cell, run: trial.run)
            if let first = seen[key] {
                throw KeyedRowError(
                    "\(source(index)) repeats the key of \(source(first)) (\(trial.cell) run "
                        + "\(trial.run)): each cell and run is one row, so a run would count twice"
                )
            }
            seen[key] = index
        }
    }
}
