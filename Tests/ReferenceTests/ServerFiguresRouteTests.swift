import ReferenceDocuments
import Testing

/// REPORT.md's image-server tables from server.csv: POST's cells apart by route and body, and a file of
/// GET's alone (one written before the `body` column) as its tables were.
struct ServerFiguresRouteTests {
    /// An ok run of a cell; `route` and `body` nil: a file without those columns.
    static func row(_ strategy: String, _ route: String?, _ body: String?, c: Int, heapMB: Int) -> [String: String] {
        var row = [
            "status": "ok", "strategy": strategy, "render": "stream", "allocator": "system",
            "render_threads": "unbounded", "concurrency": String(c), "in_flight_at_peak": String(c),
            "max_in_flight": String(c), "peak_heap_exact_delta_bytes": String(heapMB * 1_000_000),
            "baseline_rss_bytes": "50000000", "peak_rss_delta_bytes": String(heapMB * 1_000_000),
            "floor_bytes": String(heapMB * 500_000),
        ]
        row["route"] = route
        row["body"] = body
        return row
    }

    /// Three runs at C 1, 2, 4 whose heap is `perRequestMB` a request in flight.
    static func cell(_ strategy: String, _ route: String?, _ body: String?, perRequestMB: Int) -> [[String: String]] {
        [1, 2, 4].map { row(strategy, route, body, c: $0, heapMB: $0 * perRequestMB) }
    }

    static func lines(_ table: String?) -> [String] {
        (table ?? "").split(separator: "\n").map(String.init).filter { $0.hasPrefix("|") }
    }

    @Test func postCellsAreKeyedByRouteAndBody() throws {
        let old = Self.cell("download", nil, nil, perRequestMB: 1)
        let before = ServerFigures(runs: CSVRows(rows: old)).blocks()
        #expect(!(Self.lines(before["server"]).first ?? "").contains("route"), "\(before["server"] ?? "")")

        let rows =
            old + Self.cell("none", "post", "collect", perRequestMB: 14)
            + Self.cell("none", "post", "file", perRequestMB: 1)
        let blocks = ServerFigures(runs: CSVRows(rows: rows)).blocks()
        let runs = Self.lines(blocks["server"])
        #expect(runs.first?.contains("| route | body |") == true, "\(runs)")
        // Header, rule, and a line per cell and C: three cells (GET, POST collect, POST file) at three C.
        #expect(runs.count == 2 + 9, "\(runs)")
        #expect(runs.contains { $0.contains("| get | none |") }, "\(runs)")
        let slopes = Self.lines(blocks["server-slopes"])
        #expect(slopes.count == 2 + 3, "\(slopes)")
        let collect = try #require(slopes.first { $0.contains("| post | collect |") }, "\(slopes)")
        let file = try #require(slopes.first { $0.contains("| post | file |") }, "\(slopes)")
        #expect(collect.contains("| 14.0 [14.0, 14.0] |"), "\(collect)")
        #expect(file.contains("| 1.0 [1.0, 1.0] |"), "\(file)")
    }
}
