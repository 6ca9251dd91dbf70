/// One column of a result file, declared once: its name, what its numbers are, which way is better
/// and what it means. The file's writer and reader, docs/OUTPUT.md's table of its columns and
/// `bench list --output-files --json` (which the Python scripts read) all take it from there.
package struct ResultColumn: Sendable, Encodable, Equatable {
    package enum Unit: String, Sendable, Encodable {
        case bytes, seconds, milliseconds, hertz, count, pixels
        /// 1 or 0.
        case flag
        /// A name, a status or a message.
        case text
    }

    /// Which way a figure is better, as package-benchmark's metrics say it: what a comparison of
    /// two runs calls a regression.
    package enum Polarity: String, Sendable, Encodable {
        case lowerIsBetter = "lower"
        case higherIsBetter = "higher"
        /// A key, a setting or a fact of the image: not better either way.
        case neither = ""
    }

    package var name: String
    package var unit: Unit
    package var polarity: Polarity
    /// What it holds, in one sentence.
    package var meaning: String

    package init(_ name: String, _ unit: Unit, _ polarity: Polarity, _ meaning: String) {
        self.name = name
        self.unit = unit
        self.polarity = polarity
        self.meaning = meaning
    }

    /// The Markdown table of `columns`, in order, for docs/OUTPUT.md.
    package static func markdownTable(_ columns: [ResultColumn]) -> String {
        var lines = ["| column | unit | better | what |", "|---|---|---|---|"]
        for column in columns {
            lines.append(
                "| `\(column.name)` | \(column.unit.rawValue) | \(column.polarity.rawValue) | \(column.meaning) |"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A cell that is not what its column holds: the reader adds the line and the column's name.
package struct ResultCellError: Error {
    package var expected: String

    package init(expected: String) { self.expected = expected }
}
