import BenchCore
import Foundation
import Report
import Scenarios

/// The image server's two checks beyond C = 16: whether the line fitted up to C = 16 still holds at
/// C = 64 (results/server-64/), and what counting the exact heap costs the server's throughput
/// (results/server-cost/).
extension ServerFigures {
    static func missingStudyPart(_ folder: String) -> String {
        "No results/\(folder)/ in this folder: `bench-reference measure server` measures it.\n"
    }

    /// One row per cell at C = 64: its medians beside the floor at its peak (each stage's requests by
    /// their rules) and beside what the line fitted at C <= 16 (results/server/) says for as many
    /// requests in flight. The line assumes C = 16's mix of stages; the floor counts the mix at the
    /// peak. A run that failed (the memory limit) counts in "ok runs", its reason shown.
    func atScaleTable() -> String? {
        guard let scaleRows = atScale?.rows, !scaleRows.isEmpty else { return nil }
        let slopes = ServerSlope.of((runs?.rows ?? []).compactMap(ServerPoint.init(row:)))
        let keys = ["strategy", "render", "allocator", "render_threads", "concurrency"]
        let lines = ServerChartData.groups(scaleRows, by: keys).map { cell -> [String] in
            let points = cell.rows.compactMap(ServerPoint.init(row:))
            let okRows = cell.rows.filter { $0["status"] == "ok" }
            func median(_ values: [Int?]) -> Double? { Distribution(values.compactMap { $0.map(Double.init) })?.median }
            func median(_ column: String) -> Double? { Distribution(Self.numbers(okRows, column))?.median }
            let inFlight = median(points.map(\.inFlightAtPeak))
            let heap = median(points.map(\.heapDeltaBytes))
            let floor = median(points.map(\.floorBytes))
            let line = slopes.first {
                [$0.strategy, $0.render, $0.allocator, $0.renderThreads] == Array(cell.key.prefix(4))
            }
            let heapLine = line?.heap.flatMap { fit in inFlight.map { fit.fit.intercept + fit.fit.slope * $0 } }
            func mb(_ value: Double?) -> String { value.map(Self.megabytes) ?? "–" }
            func count(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "–" }
            func ratio(_ measured: Double?, _ expected: Double?) -> String {
                guard let measured, let expected, expected > 0 else { return "–" }
                return String(format: "%.2f", measured / expected)
            }
            let failure = cell.rows.first { $0["status"] != "ok" }.map { row in
                "\(row["status"] ?? ""): \(Self.shortened(row["error"] ?? ""))"
            }
            return cell.key + [
                "\(okRows.count)/\(cell.rows.count)",
                count(inFlight),
                "\(count(median("fetching_at_peak"))) / \(count(median("rendering_at_peak")))",
                mb(heap), mb(floor), ratio(heap, floor), mb(heapLine), ratio(heap, heapLine),
                mb(median(points.map(\.peakRSSBytes))),
                median("throughput_rps").map { String(format: "%.1f", $0) } ?? "–",
                failure ?? "",
            ]
        }
        return MarkdownTable.render(
            header: [
                "strategy", "render", "allocator", "render threads", "C", "ok runs", "in flight at peak",
                "fetching / rendering at peak", "peak heap Δ (MB)", "floor at peak (MB)", "× floor",
                "C ≤ 16 line (MB)", "× line", "peak RSS (MB)", "requests/s", "a failed run",
            ],
            rows: lines,
            leftAligned: 4
        )
    }

    /// The error's first clause: a crash's last words can run long.
    static func shortened(_ error: String) -> String {
        let first = error.split(separator: ";").first.map(String.init) ?? error
        return (first.count > 120 ? String(first.prefix(120)) + "…" : first).replacingOccurrences(of: "|", with: "/")
    }

    /// The measurement's cost under load, as the issue states it: throughput with the exact heap counted
    /// and residency snapshots taken within 5% of the same cell with neither. Each side's runs: median, range, p99, peak RSS.
    func costTable() -> String? {
        guard let counted = counted?.rows, let uncounted = uncounted?.rows, !counted.isEmpty, !uncounted.isEmpty
        else { return nil }
        func ok(_ rows: [[String: String]]) -> [[String: String]] { rows.filter { $0["status"] == "ok" } }
        let sides = [
            ("counted (the default)", ok(counted)), ("uncounted (--no-exact-heap --residency off)", ok(uncounted)),
        ]
        let throughputs = sides.map { Distribution(Self.numbers($0.1, "throughput_rps")) }
        var lines = zip(sides, throughputs).map { side, throughput -> [String] in
            let cell = side.1.first.map {
                "\($0["strategy"] ?? "") + \($0["render"] ?? ""), C \($0["concurrency"] ?? "")"
            }
            return [
                side.0, cell ?? "–", String(side.1.count),
                throughput.map { String(format: "%.1f", $0.median) } ?? "–",
                throughput.map { String(format: "%.1f–%.1f", $0.min, $0.max) } ?? "–",
                Distribution(Self.numbers(side.1, "latency_p99_s")).map { String(format: "%.2f", $0.median) } ?? "–",
                Distribution(Self.numbers(side.1, "peak_rss_delta_bytes")).map { Self.megabytes($0.median) } ?? "–",
            ]
        }
        guard let on = throughputs[0]?.median, let off = throughputs[1]?.median, off > 0 else { return nil }
        let cost = (off - on) / off
        let bound = Int(Self.costBound * 100)
        lines.append([
            "cost of counting", "", "", String(format: "%+.1f%%", -cost * 100), "", "",
            cost <= Self.costBound ? "met (≤ \(bound)%)" : "missed (> \(bound)%)",
        ])
        return MarkdownTable.render(
            header: ["exact heap", "cell", "ok runs", "requests/s (median)", "range", "p99 (s)", "peak RSS Δ (MB)"],
            rows: lines,
            leftAligned: 2
        )
    }

    /// The issue's bound on the throughput counting the exact heap may cost.
    static let costBound = 0.05
}
