import Foundation

/// A column of trials.csv: what it is (`ResultColumn`), how a result writes it, and how a cell read
/// back sets it. `TrialsCSV.columns` declares each one.
package struct TrialColumn: Sendable {
    package var column: ResultColumn
    package var write: @Sendable (TrialResult) -> String
    /// Sets the figure from a non-empty cell; nil for a key (the reader reads those itself) and for a
    /// figure derived from others (written, never read).
    package var read: (@Sendable (inout TrialResult, String) throws(ResultCellError) -> Void)?
    /// The figure as a number (nil: not set, or not a number: a key, a flag, a derived figure).
    package var number: (@Sendable (TrialResult) -> Double?)?

    package var name: String { column.name }

    /// A key or a label of the run: strategy, render, allocator, run, pid, status, error.
    package static func key(
        _ name: String,
        _ meaning: String,
        unit: ResultColumn.Unit = .text,
        write: @escaping @Sendable (TrialResult) -> String
    ) -> TrialColumn {
        TrialColumn(column: ResultColumn(name, unit, .neither, meaning), write: write, read: nil, number: nil)
    }

    package static func integer(
        _ name: String,
        _ figure: WritableKeyPath<TrialResult, Int?> & Sendable,
        _ unit: ResultColumn.Unit,
        _ polarity: ResultColumn.Polarity,
        _ meaning: String
    ) -> TrialColumn {
        TrialColumn(
            column: ResultColumn(name, unit, polarity, meaning),
            write: { TrialsCSV.text($0[keyPath: figure]) },
            read: { result, text throws(ResultCellError) in
                guard let value = Int(text) else { throw ResultCellError(expected: "an integer") }
                result[keyPath: figure] = value
            },
            number: { $0[keyPath: figure].map(Double.init) }
        )
    }

    /// Seconds (or another unit) written with `digits` decimals.
    package static func number(
        _ name: String,
        _ figure: WritableKeyPath<TrialResult, Double?> & Sendable,
        digits: Int = 6,
        unit: ResultColumn.Unit = .seconds,
        _ polarity: ResultColumn.Polarity,
        _ meaning: String
    ) -> TrialColumn {
        TrialColumn(
            column: ResultColumn(name, unit, polarity, meaning),
            write: { TrialsCSV.text($0[keyPath: figure], digits: digits) },
            read: { result, text throws(ResultCellError) in
                guard let value = Double(text) else { throw ResultCellError(expected: "a number") }
                result[keyPath: figure] = value
            },
            number: { $0[keyPath: figure] }
        )
    }

    /// 1 or 0 (read back: any integer, non-zero meaning true).
    package static func flag(
        _ name: String,
        _ figure: WritableKeyPath<TrialResult, Bool?> & Sendable,
        _ meaning: String
    ) -> TrialColumn {
        TrialColumn(
            column: ResultColumn(name, .flag, .neither, meaning),
            write: { $0[keyPath: figure].map { $0 ? "1" : "0" } ?? "" },
            read: { result, text throws(ResultCellError) in
                guard let value = Int(text) else { throw ResultCellError(expected: "an integer") }
                result[keyPath: figure] = value != 0
            },
            number: nil
        )
    }

    /// A figure computed from other columns or from the holders: written, never read back.
    package static func derived(
        _ name: String,
        _ unit: ResultColumn.Unit,
        _ polarity: ResultColumn.Polarity,
        _ meaning: String,
        write: @escaping @Sendable (TrialResult) -> String
    ) -> TrialColumn {
        TrialColumn(column: ResultColumn(name, unit, polarity, meaning), write: write, read: nil, number: nil)
    }
}
