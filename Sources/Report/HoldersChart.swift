import BenchCore
import Foundation

/// The "who holds the peak" chart's data: each article case under each allocator, at its median run
/// (by exact heap peak), as one bar stacked by holder. The holders shown are the largest few across
/// the bars; the rest of each bar is "other holders" and "small blocks".
package struct HoldersChart: Sendable {
    package var runs: [HolderRun]

    package init(runs: [HolderRun]) { self.runs = runs }

    /// Holders named in the legend; the others are summed as "other holders".
    static let shown = 5

    func medianRun(_ cell: TrialCell) -> HolderRun? {
        let cellRuns = runs.filter { $0.cell == cell }.sorted { ($0.totalBytes, $0.run) < ($1.totalBytes, $1.run) }
        return cellRuns.isEmpty ? nil : cellRuns[(cellRuns.count - 1) / 2]
    }

    /// holders.dat: a header of column titles, then a row per bar; nil when no article case has holders.
    package func table() -> String? {
        let bars = ArticleCase.all.flatMap { article in
            Allocator.allCases.compactMap { allocator in
                medianRun(article.cell(allocator)).map { (article, allocator, $0) }
            }
        }
        guard !bars.isEmpty else { return nil }
        var totals: [String: Int] = [:]
        for (_, _, run) in bars { for holder in run.holders { totals[holder.allocatedBy, default: 0] += holder.bytes } }
        let names = totals.keys.sorted { (totals[$0]!, $1) > (totals[$1]!, $0) }.prefix(Self.shown)
        func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "'") + "\"" }
        var lines = ([quoted("case")] + names.map(quoted) + [quoted("other holders"), quoted("small blocks")]).joined(
            separator: " "
        )
        for (article, allocator, run) in bars {
            var bytes = names.map { name in run.holders.filter { $0.allocatedBy == name }.reduce(0) { $0 + $1.bytes } }
            bytes.append(run.holders.filter { !names.contains($0.allocatedBy) }.reduce(0) { $0 + $1.bytes })
            bytes.append(run.smallBlocksBytes)
            let what = article.render == .none ? article.strategy : "\(article.strategy) + \(article.render.rawValue)"
            let label = quoted("\(what)\\n\(allocator == .system ? "glibc" : allocator.rawValue)")
            lines += "\n" + ([label] + bytes.map { String(format: "%.3f", Double($0) / 1e6) }).joined(separator: " ")
        }
        return lines + "\n"
    }
}
