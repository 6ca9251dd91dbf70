import BenchCore
import Foundation
import Report
import Scenarios

/// REPORT.md's "An image server under load", from the committed image-server run (results/server/:
/// server.csv and server-slopes.csv as `bench scenario image-server` wrote them): each cell's peaks,
/// floor, throughput and latency by concurrency, and its memory per request in flight.
package struct ServerFigures: Sendable {
    package var runs: CSVRows?
    package var slopes: CSVRows?

    package static let folderName = "server"

    package init(runs: CSVRows?, slopes: CSVRows?) {
        self.runs = runs
        self.slopes = slopes
    }

    package static func load(from results: URL) throws -> ServerFigures {
        let folder = results.appendingPathComponent(folderName)
        return ServerFigures(
            runs: try CSVRows.load(folder.appendingPathComponent("server.csv")),
            slopes: try CSVRows.load(folder.appendingPathComponent("server-slopes.csv"))
        )
    }

    static let missing = "No results/server/ in this folder: `bench-reference measure server` measures it.\n"

    package func blocks() -> [String: String] {
        ["server": runsTable() ?? Self.missing, "server-slopes": slopesTable() ?? Self.missing]
    }

    /// The constants the documents quote about the image server's figures.
    package func values() -> [String: String] {
        let containers = ServerSlope.containers.map { container in
            container.bytes >= 1 << 30 ? "\(container.bytes >> 30) GB" : "\(container.bytes >> 20) MB"
        }
        return [
            "server_interval_percent": String(LinearFit.intervalPercent),
            "server_containers": containers.dropLast().joined(separator: ", ") + " and " + (containers.last ?? ""),
        ]
    }

    static func megabytes(_ value: Double) -> String { String(format: "%.1f", value / 1e6) }

    static func numbers(_ rows: [[String: String]], _ column: String) -> [Double] {
        rows.compactMap { $0[column].flatMap(Double.init) }
    }

    /// The cell's key columns, in the file's order of first appearance.
    static func groups(_ rows: [[String: String]], by keys: [String]) -> [(key: [String], rows: [[String: String]])] {
        var order: [[String]] = []
        var groups: [[String]: [[String: String]]] = [:]
        for row in rows {
            let key = keys.map { row[$0] ?? "" }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(row)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }

    /// One row per cell and concurrency: medians over its ok runs.
    func runsTable() -> String? {
        guard let rows = runs?.rows, !rows.isEmpty else { return nil }
        let cells = Self.groups(
            rows,
            by: ["strategy", "render", "allocator", "render_threads", "concurrency"]
        )
        let lines = cells.map { cell -> [String] in
            let ok = cell.rows.filter { $0["status"] == "ok" }
            func median(_ column: String, _ format: (Double) -> String) -> String {
                Distribution(Self.numbers(ok, column)).map { format($0.median) } ?? "–"
            }
            return cell.key + [
                "\(ok.count)/\(cell.rows.count)",
                median("in_flight_at_peak") { String(format: "%.0f", $0) },
                median("peak_heap_exact_delta_bytes", Self.megabytes),
                median("peak_rss_delta_bytes", Self.megabytes),
                median("floor_bytes", Self.megabytes),
                median("throughput_rps") { String(format: "%.1f", $0) },
                median("latency_p99_s") { String(format: "%.2f", $0) },
            ]
        }
        return MarkdownTable.render(
            header: [
                "strategy", "render", "allocator", "render threads", "C", "ok runs", "in flight at peak",
                "peak heap Δ (MB)", "peak RSS Δ (MB)", "floor at peak (MB)", "requests/s", "p99 (s)",
            ],
            rows: lines,
            leftAligned: 4
        )
    }

    /// The floor a request in flight holds at the heap peak, per cell: the median over its ok runs of
    /// the floor at the peak divided by the requests in flight then.
    func floorPerRequest(strategy: String, render: String, allocator: String, renderThreads: String) -> Double? {
        let rows = (runs?.rows ?? []).filter {
            $0["status"] == "ok" && $0["strategy"] == strategy && $0["render"] == render
                && $0["allocator"] == allocator && $0["render_threads"] == renderThreads
        }
        let perRequest = rows.compactMap { row -> Double? in
            guard let floor = row["floor_bytes"].flatMap(Double.init),
                let inFlight = row["in_flight_at_peak"].flatMap(Double.init), inFlight > 0
            else { return nil }
            return floor / inFlight
        }
        return Distribution(perRequest)?.median
    }

    /// One row per cell: memory per request in flight with its interval, against the floor a request
    /// holds, the fixed cost, and what fits a container.
    func slopesTable() -> String? {
        guard let rows = slopes?.rows, !rows.isEmpty else { return nil }
        let lines = rows.map { row -> [String] in
            let floor = floorPerRequest(
                strategy: row["strategy"] ?? "",
                render: row["render"] ?? "",
                allocator: row["allocator"] ?? "",
                renderThreads: row["render_threads"] ?? ""
            )
            let slope = row["slope_heap_bytes"].flatMap(Double.init)
            func mb(_ column: String) -> String { row[column].flatMap(Double.init).map(Self.megabytes) ?? "–" }
            func interval(_ slope: String, _ low: String, _ high: String) -> String {
                guard row[low].flatMap(Double.init) != nil else { return mb(slope) }
                return "\(mb(slope)) [\(mb(low)), \(mb(high))]"
            }
            return ["strategy", "render", "allocator", "render_threads"].map { row[$0] ?? "" } + [
                row["points"] ?? "",
                interval("slope_heap_bytes", "slope_heap_low_bytes", "slope_heap_high_bytes"),
                floor.map(Self.megabytes) ?? "–",
                slope.flatMap { slope in floor.map { String(format: "%.2f", slope / $0) } } ?? "–",
                mb("intercept_heap_bytes"),
                interval("slope_rss_bytes", "slope_rss_low_bytes", "slope_rss_high_bytes"),
                mb("intercept_rss_bytes"),
                row["fits_512mb"] ?? "", row["fits_1gb"] ?? "", row["fits_2gb"] ?? "",
            ]
        }
        return MarkdownTable.render(
            header: [
                "strategy", "render", "allocator", "render threads", "runs", "heap per request (MB) [95%]",
                "floor per request (MB)", "× floor", "fixed heap (MB)", "RSS per request (MB) [95%]", "fixed RSS (MB)",
                "fit 512 MB", "fit 1 GB",
                "fit 2 GB",
            ],
            rows: lines,
            leftAligned: 4
        )
    }
}
