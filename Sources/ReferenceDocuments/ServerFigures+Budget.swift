import BenchCore
import Foundation
import Report
import Scenarios

/// REPORT.md's "A budget that bounds the peak" (results/server-budget/): whether `--memory-budget`
/// holds the article's cells under the budget plus the server's fixed cost plus 5% at C = 16 and 64
/// (bound/), and the budget beside `--workers` and nothing on the same load of a mixed corpus.
extension ServerFigures {
    /// What the bound allows over the budget and the fixed cost: 5%.
    static let budgetMargin = 0.05

    /// The study's folders: the bound, then the mixed corpus's three ways, as the table names them.
    static let budgetFolder = "server-budget"
    static let mixedModes = [("unbounded", "nothing"), ("workers", "--workers"), ("budget", "--memory-budget")]

    /// One row per cell and concurrency, its worst run (the highest heap peak: a bound holds in every
    /// run): the budget, the fixed cost (the intercept of the cell's line in results/server/, render
    /// threads as here), the heap and RSS peaks against budget plus fixed cost, and under glibc the
    /// allocator-free share of RSS at its peak (server-residency.csv of that run).
    func budgetBoundTable() -> String? {
        guard let rows = budgetBound?.rows, !rows.isEmpty else { return nil }
        let slopes = ServerSlope.of((runs?.rows ?? []).compactMap(ServerPoint.init(row:)))
        let keys = ["strategy", "render", "allocator", "render_threads", "concurrency"]
        let lines = ServerChartData.groups(rows, by: keys).compactMap { cell -> [String]? in
            let ok = cell.rows.filter { $0["status"] == "ok" }
            guard
                let worst = ok.max(by: {
                    Double($0["peak_heap_exact_delta_bytes"] ?? "") ?? 0 < Double(
                        $1["peak_heap_exact_delta_bytes"] ?? ""
                    ) ?? 0
                }),
                let budget = worst["budget_bytes"].flatMap(Double.init),
                let heap = worst["peak_heap_exact_delta_bytes"].flatMap(Double.init)
            else { return nil }
            let line = slopes.first {
                Array($0.cell.prefix(3)) == Array(cell.key.prefix(3)) && $0.renderThreads == cell.key[3]
            }
            let fixed = line?.heap.map { max(0, $0.fit.intercept) }
            let bound = fixed.map { budget + $0 }
            let rss = worst["peak_rss_delta_bytes"].flatMap(Double.init)
            let free = allocatorFreeAtRSSPeak(of: worst)
            func mb(_ value: Double?) -> String { value.map(Self.megabytes) ?? "–" }
            func ratio(_ value: Double?) -> String {
                guard let value, budget > 0 else { return "–" }
                return String(format: "%.2f", value / budget)
            }
            let verdict = bound.map { heap <= $0 * (1 + Self.budgetMargin) ? "met" : "missed" } ?? "–"
            return cell.key + [
                "\(ok.count)/\(cell.rows.count)", worst["admitted_max"] ?? "–",
                mb(worst["reserved_max_bytes"].flatMap(Double.init)), mb(budget), mb(fixed), mb(heap), ratio(heap),
                verdict, mb(rss), ratio(rss), worst["allocator"] == Allocator.system.rawValue ? mb(free) : "–",
                worst["throughput_rps"].flatMap(Double.init).map { String(format: "%.1f", $0) } ?? "–",
            ]
        }
        guard !lines.isEmpty else { return nil }
        return MarkdownTable.render(
            header: [
                "strategy", "render", "allocator", "render threads", "C", "ok runs", "admitted at most",
                "reserved at most (MB)", "budget (MB)", "fixed cost (MB)", "heap peak Δ (MB)",
                "heap / budget", "heap ≤ budget + fixed + \(Int(Self.budgetMargin * 100))%", "RSS peak Δ (MB)",
                "RSS / budget",
                "allocator-free at RSS peak (MB)", "requests/s",
            ],
            rows: lines,
            leftAligned: 4
        )
    }

    /// The allocator-free bytes at `run`'s RSS peak, from the bound's server-residency.csv.
    private func allocatorFreeAtRSSPeak(of run: [String: String]) -> Double? {
        let key = ServerCSV.keyColumns.map { run[$0] ?? ServerChartData.absent[$0] ?? "" }
        return budgetBoundResidency?.rows.first { row in
            ServerCSV.keyColumns.map { row[$0] ?? ServerChartData.absent[$0] ?? "" } == key
                && row["moment"] == ResidencyMoment.rssPeak.rawValue
                && row["category"] == ResidencyCategory.allocatorFree.rawValue
        }.flatMap { $0["bytes"] }.flatMap(Double.init)
    }

    /// One row per way of admitting on the mixed corpus: medians over the runs (the heap peak's worst
    /// beside its median), the queue's times and the refusals summed.
    func budgetMixedTable() -> String? {
        let modes = Self.mixedModes.compactMap { folder, title -> (String, [[String: String]])? in
            guard let rows = budgetMixed[folder]?.rows, !rows.isEmpty else { return nil }
            return (title, rows)
        }
        guard !modes.isEmpty else { return nil }
        let lines = modes.map { title, rows -> [String] in
            let ok = rows.filter { $0["status"] == "ok" }
            func median(_ column: String, _ format: (Double) -> String) -> String {
                Distribution(Self.numbers(ok, column)).map { format($0.median) } ?? "–"
            }
            func maximum(_ column: String) -> String { Self.numbers(ok, column).max().map(Self.megabytes) ?? "–" }
            func total(_ column: String) -> String {
                Self.numbers(ok, column).isEmpty ? "–" : String(format: "%.0f", Self.numbers(ok, column).reduce(0, +))
            }
            let budget: String? = rows.first?["budget_bytes"].flatMap(Double.init).map { "\(Self.megabytes($0)) MB" }
            let workers: String? = rows.first?["workers"].flatMap { $0.isEmpty ? nil : "\($0) at once" }
            let limit = budget ?? workers ?? "none"
            let seconds: (Double) -> String = { String(format: "%.2f", $0) }
            return [
                title, limit, "\(ok.count)/\(rows.count)", median("peak_heap_exact_delta_bytes", Self.megabytes),
                maximum("peak_heap_exact_delta_bytes"), median("peak_rss_delta_bytes", Self.megabytes),
                median("admitted_max") { String(format: "%.0f", $0) },
                median("throughput_rps") { String(format: "%.2f", $0) }, median("latency_p99_s", seconds),
                median("queue_p50_s", seconds), median("queue_p99_s", seconds), total("rejected_503"),
                total("overruns"),
            ]
        }
        return MarkdownTable.render(
            header: [
                "admitted by", "limit", "ok runs", "heap peak Δ (MB)", "worst heap peak Δ (MB)", "RSS peak Δ (MB)",
                "admitted at most", "requests/s", "p99 (s)", "queue p50 (s)", "queue p99 (s)", "503s", "overruns",
            ],
            rows: lines,
            leftAligned: 2
        )
    }

    /// The values the budget's prose quotes: the study's settings (ReferenceStudies), which its data was
    /// measured with.
    func budgetValues() -> [String: String] {
        let budget = ReferenceStudies.serverBudgetArguments.last ?? ""
        return [
            "server_budget_margin_percent": String(Int(Self.budgetMargin * 100)),
            "server_budget_mib": budget.hasSuffix("Mi") ? String(budget.dropLast(2)) : budget,
            "server_budget_mixed_images": String(ReferenceStudies.mixedImages.count),
            "server_budget_mixed_workers": ReferenceStudies.serverMixedWorkers.last ?? "",
        ]
    }
}
