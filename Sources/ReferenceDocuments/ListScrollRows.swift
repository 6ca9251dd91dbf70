import BenchCore
import Foundation
import Scenarios

/// The rows of one list-scroll CSV, read for a document's figures: one settings group, or groups that
/// differ only in the settings the file is about (`varying`: the memory limit, the fault, the speed).
struct ListScrollRows {
    /// Each row as column name to value, in file order.
    var rows: [[String: String]]
    /// The settings every row shares (`ListScrollCSV.settingColumns` but `varying`), in that order.
    var sharedSettings: [(column: String, value: String)]

    /// Refuses rows that differ in a setting outside `varying` (naming it and its values), as a file
    /// appended to by scrolls of other settings, or of an older version that did not record them.
    init(_ text: String, path: String, varying: Set<String> = []) throws {
        let groups = try ListScrollCSV.groups(text, path: path)
        let differing = ListScrollCSV.settingColumns.filter { !varying.contains($0) }.compactMap { column -> String? in
            var values: [String] = []
            for group in groups {
                let value = group.settings.first { $0.column == column }?.value ?? ""
                if !values.contains(value) { values.append(value) }
            }
            return values.count > 1
                ? "\(column): \(values.map { $0.isEmpty ? "(none)" : $0 }.joined(separator: " / "))" : nil
        }
        guard differing.isEmpty else {
            throw ScenarioError.settingsBeyond(
                path: path,
                varying: ListScrollCSV.settingColumns.filter(varying.contains),
                differing: differing
            )
        }
        rows = groups.flatMap(\.rows)
        sharedSettings = groups.first?.settings.filter { !varying.contains($0.column) } ?? []
    }

    /// The distinct values of `column`, in file order.
    func ordered(_ column: String, in rows: [[String: String]]? = nil) -> [String] {
        var seen: [String] = []
        for row in rows ?? self.rows { if let value = row[column], !seen.contains(value) { seen.append(value) } }
        return seen
    }

    /// The rows whose columns have these values.
    func matching(_ values: [String: String]) -> [[String: String]] {
        rows.filter { row in values.allSatisfy { row[$0.key] == $0.value } }
    }

    /// `column` of `rows` as numbers (empty fields left out).
    static func numbers(_ column: String, of rows: [[String: String]]) -> [Double] {
        rows.compactMap { $0[column].flatMap(Double.init) }
    }

    /// Peak RSS over baseline of each row, in MB.
    static func peakOverBaselineMB(_ rows: [[String: String]]) -> [Double] {
        rows.compactMap { row in
            guard let peak = row["peak_rss_bytes"].flatMap(Double.init),
                let base = row["baseline_rss_bytes"].flatMap(Double.init)
            else { return nil }
            return (peak - base) / 1e6
        }
    }

    /// The median of `values`, nil for none.
    static func median(_ values: [Double]) -> Double? { Distribution(values)?.median }
}
