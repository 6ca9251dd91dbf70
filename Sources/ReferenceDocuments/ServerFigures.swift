import BenchCore
import Foundation
import Report
import Scenarios
import Strategies

/// REPORT.md's "An image server under load", from the committed image-server run (results/server/
/// server.csv as `bench scenario image-server` wrote it): each cell's memory per request in flight
/// (fitted here as the measurement fits it), and its peaks, floor, throughput and latency by concurrency.
package struct ServerFigures: Sendable {
    package var runs: CSVRows?
    /// results/server-64/: the article's cells at C = 64, every decode at once.
    package var atScale: CSVRows?
    /// results/server-cost/counted and uncounted/: one cell with the exact heap counted and not.
    package var counted: CSVRows?
    package var uncounted: CSVRows?
    /// results/server-residency/: the article's cells at C = 16, their runs (server.csv) and RSS by
    /// category at each run's RSS peak and end (server-residency.csv).
    package var residencyRuns: CSVRows?
    package var residency: CSVRows?
    /// results/server-budget/: the bound (bound/server.csv and its server-residency.csv), and the mixed
    /// corpus by way of admitting (unbounded, workers and budget/server.csv).
    package var budgetBound: CSVRows?
    package var budgetBoundResidency: CSVRows?
    package var budgetMixed: [String: CSVRows] = [:]

    package static let folderName = "server"

    package init(
        runs: CSVRows?,
        atScale: CSVRows? = nil,
        counted: CSVRows? = nil,
        uncounted: CSVRows? = nil,
        residencyRuns: CSVRows? = nil,
        residency: CSVRows? = nil
    ) {
        self.runs = runs
        self.atScale = atScale
        self.counted = counted
        self.uncounted = uncounted
        self.residencyRuns = residencyRuns
        self.residency = residency
    }

    package static func load(from results: URL) throws -> ServerFigures {
        func rows(_ folder: String) throws -> CSVRows? {
            try CSVRows.load(results.appendingPathComponent(folder).appendingPathComponent("server.csv"))
        }
        var figures = ServerFigures(
            runs: try rows(folderName),
            atScale: try rows("server-64"),
            counted: try rows("server-cost/counted"),
            uncounted: try rows("server-cost/uncounted"),
            residencyRuns: try rows("server-residency"),
            residency: try CSVRows.load(results.appendingPathComponent("server-residency/server-residency.csv"))
        )
        figures.budgetBound = try rows("\(budgetFolder)/bound")
        figures.budgetBoundResidency = try CSVRows.load(
            results.appendingPathComponent("\(budgetFolder)/bound/server-residency.csv")
        )
        for (folder, _) in mixedModes {
            figures.budgetMixed[folder] = try rows("\(budgetFolder)/\(folder)")
        }
        return figures
    }

    static let missing = "No results/server/ in this folder: `bench-reference measure server` measures it.\n"

    package func blocks() -> [String: String] {
        [
            "server": runsTable() ?? Self.missing, "server-slopes": slopesTable() ?? Self.missing,
            "server-targets": targetsTable() ?? Self.missing,
            "server-64": atScaleTable() ?? Self.missingStudyPart("server-64"),
            "server-cost": costTable() ?? Self.missingStudyPart("server-cost"),
            "server-residency": residencyTable() ?? Self.missingStudyPart("server-residency"),
            "server-budget-bound": budgetBoundTable() ?? Self.missingBudget,
            "server-budget-mixed": budgetMixedTable() ?? Self.missingBudget,
        ]
    }

    /// The constants the documents quote about the image server's figures.
    package func values() -> [String: String] {
        let containers = ServerSlope.containers.map(\.title)
        return [
            "server_interval_percent": String(LinearFit.intervalPercent),
            "server_containers": containers.dropLast().joined(separator: ", ") + " and " + (containers.last ?? ""),
            "server_client_cap_shipped": String(StrategySession.shippedConnectionsPerHost),
            "server_cost_bound_percent": String(Int(Self.costBound * 100)),
        ].merging(budgetValues()) { first, _ in first }
    }

    static let missingBudget =
        "No results/\(budgetFolder)/ in this folder: `bench-reference measure server-budget` measures it.\n"

    /// The chart's data (scripts/plots/server.gp), as `bench report` writes a user's server run's.
    package func chartFiles() -> [String: String] { ServerChartData.files(runs?.rows ?? []) }

    static func megabytes(_ value: Double) -> String { String(format: "%.1f", value / 1e6) }

    static func numbers(_ rows: [[String: String]], _ column: String) -> [Double] {
        rows.compactMap { $0[column].flatMap(Double.init) }
    }

    /// `route` and `body` as key columns of the tables when a row measured POST; none when every row is
    /// GET's (a file written before the POST route had no `body` column), whose tables stay as they were.
    static func routeKeys(_ rows: [[String: String]]) -> [String] {
        rows.contains { ($0["route"] ?? "get") != "get" } ? ["route", "body"] : []
    }

    /// One row per cell and concurrency: medians over its ok runs.
    func runsTable() -> String? {
        guard let rows = runs?.rows, !rows.isEmpty else { return nil }
        let routeKeys = Self.routeKeys(rows)
        let cells = ServerChartData.groups(
            rows,
            by: ["strategy", "render", "allocator"] + routeKeys + ["render_threads", "concurrency"]
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
            header: ["strategy", "render", "allocator"] + routeKeys + [
                "render threads", "C", "ok runs", "in flight at peak", "peak heap Δ (MB)", "peak RSS Δ (MB)",
                "floor at peak (MB)", "requests/s", "p99 (s)",
            ],
            rows: lines,
            leftAligned: 4 + routeKeys.count
        )
    }

    /// One row per cell: memory per request in flight with its interval against the floor's own slope,
    /// the lines' values at none, and what fits a container. Fitted here from server.csv's runs
    /// (`ServerSlope`, as the measurement fits them into server-slopes.csv).
    func slopesTable() -> String? {
        guard let rows = runs?.rows, !rows.isEmpty else { return nil }
        let points = rows.compactMap(ServerPoint.init(row:))
        let slopes = ServerSlope.of(points)
        guard !slopes.isEmpty else { return nil }
        let routeKeys = Self.routeKeys(rows)
        let maxInFlight = Dictionary(points.map { ($0.cell, $0.maxInFlight) }, uniquingKeysWith: max)
        let lines = slopes.map { slope -> [String] in
            func interval(_ fit: ServerSlope.Fit?) -> String {
                guard let fit else { return "–" }
                return "\(Self.megabytes(fit.fit.slope)) [\(Self.megabytes(fit.slope.lowerBound)), "
                    + "\(Self.megabytes(fit.slope.upperBound))]"
            }
            let ratio = Self.floorRatio(slope).map { String(format: "%.2f", $0) }
            // Past the most requests in flight measured, what fits is the line's extrapolation.
            let measured = maxInFlight[slope.cell] ?? 0
            func fits(_ bytes: Int) -> String {
                guard let count = slope.requestsFitting(bytes) else { return "–" }
                return count > measured ? "\(count)†" : String(count)
            }
            let route = routeKeys.isEmpty ? [] : [slope.route, slope.body]
            return [slope.strategy, slope.render, slope.allocator] + route + [slope.renderThreads] + [
                "\(slope.fitted) of \(slope.runs)",
                interval(slope.heap),
                slope.floor.map { Self.megabytes($0.fit.slope) } ?? "–",
                ratio ?? "–",
                slope.heap.map { Self.megabytes($0.fit.intercept) } ?? "–",
                interval(slope.rss),
                slope.rss.map { Self.megabytes($0.fit.intercept) } ?? "–",
            ] + ServerSlope.containers.map { fits($0.bytes) }
        }
        let table = MarkdownTable.render(
            header: ["strategy", "render", "allocator"] + routeKeys + [
                "render threads", "runs fitted", "heap per request (MB) [95%]", "floor per request (MB)", "× floor",
                "heap at none (MB)", "RSS per request (MB) [95%]", "RSS at none (MB)",
            ] + ServerSlope.containers.map { "fit \($0.title)" },
            rows: lines,
            leftAligned: 4 + routeKeys.count
        )
        return table
            + "\n† more requests in flight than were measured: the line's extrapolation, not a measurement.\n"
    }

    /// The heap's slope over the floor's, when the floor adds at least a megabyte a request (a
    /// request that waits holding a file adds next to nothing, and a ratio to it says nothing).
    static func floorRatio(_ slope: ServerSlope) -> Double? {
        guard let heap = slope.heap, let floor = slope.floor, floor.fit.slope >= 1e6 else { return nil }
        return heap.fit.slope / floor.fit.slope
    }

    /// The issue's targets against the reference: each cell's slope beside the bound it must meet.
    func targetsTable() -> String? {
        guard let rows = runs?.rows, !rows.isEmpty else { return nil }
        let slopes = ServerSlope.of(rows.compactMap(ServerPoint.init(row:)))
        typealias Target = (
            title: String, strategy: String, render: String, threads: String, low: Double, high: Double, rss: Bool
        )
        let targets: [Target] = [
            ("heap per request at most 1.5 x the floor's", "download", "stream", "unbounded", 0, 1.5, false),
            ("RSS per request at most 2 x the floor's", "download", "stream", "unbounded", 0, 2, true),
            ("heap per request within 10% of the floor's (the renders)", "data", "full", "unbounded", 0.9, 1.1, false),
            ("heap per request within 10% of the floor's (a waiting body)", "data", "full", "2", 0.9, 1.1, false),
        ]
        var lines: [[String]] = []
        for target in targets {
            for slope in slopes
            where slope.strategy == target.strategy && slope.render == target.render
                && slope.renderThreads == target.threads
            {
                let fit = target.rss ? slope.rss : slope.heap
                guard let fit, let floor = slope.floor, floor.fit.slope > 0 else { continue }
                let ratio = fit.fit.slope / floor.fit.slope
                let bound =
                    target.low > 0
                    ? String(format: "%.1f–%.1f", target.low, target.high) : String(format: "≤ %.1f", target.high)
                lines.append([
                    "\(target.strategy) + \(target.render), \(target.threads == "unbounded" ? "a thread per render" : "\(target.threads) render threads")",
                    slope.allocator, target.title, String(format: "%.2f", ratio), bound,
                    (target.low...target.high).contains(ratio) ? "met" : "missed",
                ])
            }
        }
        guard !lines.isEmpty else { return nil }
        return MarkdownTable.render(
            header: ["cell", "allocator", "target", "slope / floor's slope", "bound", ""],
            rows: lines,
            leftAligned: 3
        )
    }
}
