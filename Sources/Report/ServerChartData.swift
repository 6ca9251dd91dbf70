import BenchCore
import Foundation

/// The image server's chart data (scripts/plots/server.gp) from server.csv's rows: `server.dat`, one
/// block per cell (strategy, renderer, render threads; with POST's route and body) of its ok runs by
/// requests in flight at the heap peak (in flight, heap peak delta, floor, RSS peak delta in MB,
/// throughput), and `server_vars.gp`, the blocks' titles and the allocator drawn (with an empty
/// `vars.gp` for common.gp). One allocator is
/// drawn, glibc's when the file has it (sixteen series would not read; the rest are in the tables),
/// and GET's cells when it has them.
package enum ServerChartData {
    package static func files(_ rows: [[String: String]]) -> [String: String] {
        let ok = rows.filter { $0["status"] == "ok" }
        guard
            let allocator = ok.contains(where: { $0["allocator"] == Allocator.system.rawValue })
                ? Allocator.system.rawValue : ok.first?["allocator"]
        else { return [:] }
        let sameAllocator = ok.filter { $0["allocator"] == allocator }
        let get = sameAllocator.filter { ($0["route"] ?? "get") == "get" }
        let cells = groups(
            get.isEmpty ? sameAllocator : get,
            by: ["route", "body", "strategy", "render", "allocator", "render_threads"]
        )
        guard !cells.isEmpty else { return [:] }
        var blocks: [String] = []
        for cell in cells {
            let points = cell.rows.compactMap { row -> (Double, String)? in
                guard let inFlight = row["in_flight_at_peak"].flatMap(Double.init),
                    let heap = row["peak_heap_exact_delta_bytes"].flatMap(Double.init)
                else { return nil }
                let floor = row["floor_bytes"].flatMap(Double.init).map(megabytes) ?? "NaN"
                let rss = row["peak_rss_delta_bytes"].flatMap(Double.init).map(megabytes) ?? "NaN"
                let throughput = row["throughput_rps"] ?? "NaN"
                return (inFlight, "\(Int(inFlight)) \(megabytes(heap)) \(floor) \(rss) \(throughput)")
            }
            blocks.append(
                "# \(cell.key.joined(separator: " "))\n"
                    + points.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: "\n")
            )
        }
        let titles = cells.map { cell in
            let threads = cell.key[5] == "unbounded" ? "a thread per render" : "\(cell.key[5]) render threads"
            let fetch = cell.key[0] == "get" ? cell.key[2] : "\(cell.key[0]) \(cell.key[1])"
            return "\(fetch) + \(cell.key[3]), \(threads)"
        }
        let quoted = titles.map { "\"" + $0.replacingOccurrences(of: "\"", with: "'") + "\"" }
        let allocatorName = allocator == Allocator.system.rawValue ? "glibc" : allocator
        return [
            "server.dat": blocks.joined(separator: "\n\n\n") + "\n",
            "server_vars.gp":
                "server_count = \(cells.count)\narray server_title[\(cells.count)] = [\(quoted.joined(separator: ", "))]\n"
                + "server_allocator = \"\(allocatorName)\"\n",
            // common.gp loads a run's variables; a server's folder has none of a run's.
            "vars.gp": "# Written by `bench report` from server.csv; do not edit.\n",
        ]
    }

    static func megabytes(_ value: Double) -> String { String(format: "%.1f", value / 1e6) }

    /// What a row without the column was: a server.csv from before the POST route.
    package static let absent = ["route": "get", "body": "none"]

    /// The rows grouped by the key columns, in the file's order of first appearance.
    package static func groups(
        _ rows: [[String: String]],
        by keys: [String]
    ) -> [(key: [String], rows: [[String: String]])] {
        var order: [[String]] = []
        var groups: [[String]: [[String: String]]] = [:]
        for row in rows {
            let key = keys.map { row[$0] ?? absent[$0] ?? "" }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(row)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }
}
