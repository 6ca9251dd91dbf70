import Foundation

/// A GitHub-flavoured Markdown table: text columns left-aligned, numbers right-aligned.
package enum MarkdownTable {
    package static func render(header: [String], rows: [[String]], leftAligned: Int) -> String {
        func line(_ cells: [String]) -> String {
            "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        let rule = header.indices.map { $0 < leftAligned ? "---" : "---:" }
        return ([line(header), "|" + rule.joined(separator: "|") + "|"] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    /// The cells of a table rendered by `render`, header first (escaped pipes are not split).
    package static func parse(_ text: String) -> [[String]] {
        text.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("|") && !$0.hasPrefix("|---") && !$0.hasPrefix("|:")
        }
        .map { line in
            let inner = line.dropFirst().dropLast()
            return inner.replacingOccurrences(of: "\\|", with: "\u{0}").split(
                separator: "|",
                omittingEmptySubsequences: false
            )
            .map { $0.replacingOccurrences(of: "\u{0}", with: "|").trimmingCharacters(in: .whitespaces) }
        }
    }
}
