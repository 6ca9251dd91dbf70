import BenchCore
import Foundation
import Report
import Scenarios

/// What the image server's RSS is at its peak (results/server-residency/): the categories of
/// server-residency.csv at the RSS peak of each cell's median run (by peak RSS delta), and what of
/// it the allocator still kept at the window's end.
extension ServerFigures {
    /// The categories as the table shows them, in server-residency.csv's names.
    static let residencyColumns: [(category: ResidencyCategory, title: String)] = [
        (.heapHolders, "heap holders"), (.smallHeapBlocks, "small blocks"), (.allocatorFree, "allocator-free"),
        (.threadStacks, "stacks"), (.fileBacked, "file-backed"), (.otherAnonymous, "other"),
        (.unattributed, "unattributed"),
    ]

    func residencyTable() -> String? {
        guard let runRows = residencyRuns?.rows, let categoryRows = residency?.rows, !runRows.isEmpty else {
            return nil
        }
        let keys = ["strategy", "render", "allocator", "render_threads", "concurrency"]
        let lines = ServerChartData.groups(runRows.filter { $0["status"] == "ok" }, by: keys).compactMap {
            cell -> [String]? in
            let ranked = cell.rows.compactMap { row in
                row["peak_rss_delta_bytes"].flatMap(Int.init).map { (row, $0) }
            }.sorted { $0.1 < $1.1 }
            guard !ranked.isEmpty else { return nil }
            let (median, rssDelta) = ranked[(ranked.count - 1) / 2]
            let runKey = ServerCSV.keyColumns.map { median[$0] ?? ServerChartData.absent[$0] ?? "" }
            let mine = categoryRows.filter { row in
                ServerCSV.keyColumns.map { row[$0] ?? ServerChartData.absent[$0] ?? "" } == runKey
            }
            func bytes(_ moment: ResidencyMoment, _ category: ResidencyCategory) -> Double? {
                mine.first { $0["moment"] == moment.rawValue && $0["category"] == category.rawValue }
                    .flatMap { $0["bytes"] }.flatMap(Double.init)
            }
            func mb(_ value: Double?) -> String { value.map(Self.megabytes) ?? "–" }
            return cell.key + [
                "\(median["run"] ?? "") of \(cell.rows.count)", mb(Double(rssDelta)),
            ] + Self.residencyColumns.map { mb(bytes(.rssPeak, $0.category)) } + [
                mb(bytes(.end, .allocatorFree))
            ]
        }
        guard !lines.isEmpty else { return nil }
        return MarkdownTable.render(
            header: ["strategy", "render", "allocator", "render threads", "C", "median run", "peak RSS Δ (MB)"]
                + Self.residencyColumns.map { "\($0.title) (MB)" } + ["allocator-free at the end (MB)"],
            rows: lines,
            leftAligned: 4
        )
    }
}
