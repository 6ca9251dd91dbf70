import Foundation

/// A column of a result file: what it is, declared once (name, unit, polarity, meaning), and how a
/// row writes it. The image server's files, corpus.csv and the scroll's file declare theirs with it;
/// the writer, `bench list --output-files --json` and docs/OUTPUT.md's tables read the declarations.
package struct WrittenColumn<Row>: Sendable {
    package var column: ResultColumn
    package var write: @Sendable (Row) -> String

    package init(
        _ name: String,
        _ unit: ResultColumn.Unit,
        _ polarity: ResultColumn.Polarity,
        _ meaning: String,
        write: @escaping @Sendable (Row) -> String
    ) {
        column = ResultColumn(name, unit, polarity, meaning)
        self.write = write
    }

    package var name: String { column.name }

    /// One line per row, each ending in a newline, with the run's id last when given.
    package static func lines(_ columns: [WrittenColumn<Row>], rows: [Row], runID: String?) -> String {
        rows.map { row in CSV.line(columns.map { $0.write(row) } + (runID.map { [$0] } ?? [])) + "\n" }.joined()
    }

    package static func header(_ columns: [WrittenColumn<Row>], runID: Bool) -> [String] {
        columns.map(\.name) + (runID ? [TrialsCSV.runIDColumn] : [])
    }

    /// A whole file written at once: the header with the run's id column, then the rows.
    package static func file(_ columns: [WrittenColumn<Row>], rows: [Row], runID: String) -> Data {
        Data((CSV.line(header(columns, runID: true)) + "\n" + lines(columns, rows: rows, runID: runID)).utf8)
    }
}
