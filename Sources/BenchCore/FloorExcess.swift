import Foundation

/// How far one run's exact heap peak is above its floor, and which roles hold the excess.
package struct FloorExcess: Sendable, Equatable {
    package var floorBytes: Int
    /// The exact heap peak over the baseline, less the floor.
    package var heapBytes: Int
    /// Each role's bytes at the peak less its part of the floor, largest first, with the largest
    /// holder of that role; `other` takes what the rest leaves of `heapBytes` (small blocks, the
    /// baseline's blocks). Empty when the run has no holders or no floor by role (a trials.csv).
    package var byRole: [RoleExcess]

    package struct RoleExcess: Sendable, Equatable {
        package var role: HolderRole
        package var bytes: Int
        /// The largest holder of the role at the peak ("" for none).
        package var largestHolder: String
    }

    /// Nil when the run has no floor or no exact heap peak.
    package static func of(_ run: TrialResult) -> FloorExcess? {
        guard let floor = run.floorBytes, let heap = run.peakHeapExactDeltaBytes else { return nil }
        var excess = FloorExcess(floorBytes: floor, heapBytes: heap - floor, byRole: [])
        let rows = HoldersCSV.rows(of: run)
        guard let parts = run.floorParts else { return excess }
        excess.byRole = byRole(rows, parts: parts, heapOverFloor: excess.heapBytes)
        return excess
    }

    /// Each role's excess from a run's holders (holders.csv's rows, the small blocks last) and its
    /// floor by role; empty when a row has no role.
    package static func byRole(_ rows: [PeakHolder], parts: FloorParts, heapOverFloor: Int) -> [RoleExcess] {
        guard !rows.isEmpty, rows.allSatisfy({ $0.role != nil }) else { return [] }
        var named: [RoleExcess] = HolderRole.allCases.filter { $0 != .other }.map { role in
            let mine = rows.filter { $0.role == role }
            return RoleExcess(
                role: role,
                bytes: mine.reduce(0) { $0 + $1.bytes } - parts.bytes(of: role),
                largestHolder: mine.max { $0.bytes < $1.bytes }?.allocatedBy ?? ""
            )
        }
        let others = rows.dropLast().filter { $0.role == .other }  // the last row is the small blocks
        named.append(
            RoleExcess(
                role: .other,
                bytes: heapOverFloor - named.reduce(0) { $0 + $1.bytes },
                largestHolder: others.max { $0.bytes < $1.bytes }?.allocatedBy ?? ""
            )
        )
        return named.sorted { (abs($0.bytes), $1.role.rawValue) > (abs($1.bytes), $0.role.rawValue) }
    }

    /// Roles whose excess is at least 0.05 MB either way: "+16.8 MB body-buffer (byAppending(bodyData:))".
    package var rolesText: String {
        let shown = byRole.filter { abs($0.bytes) >= 50_000 }
        guard !shown.isEmpty else { return byRole.isEmpty ? "" : "no role over 0.05 MB" }
        return shown.map { part in
            String(format: "%+.1f MB ", Double(part.bytes) / 1e6) + part.role.rawValue
                + (part.largestHolder.isEmpty ? "" : " (\(part.largestHolder))")
        }.joined(separator: ", ")
    }
}

/// Printed under the holders: each cell's floor and how far its peaks are above it.
package enum FloorTable {
    package static func render(_ results: [TrialResult], cells: [TrialCell]) -> String {
        var lines: [String] = []
        for cell in cells {
            let runs = results.filter { $0.cell == cell && $0.isSuccess }
            guard !runs.isEmpty else { continue }
            guard let median = TrialResult.medianHolderRun(runs) ?? medianHeapRun(runs),
                let excess = FloorExcess.of(median)
            else {
                lines.append("\(cell): no floor (its strategy's or renderer's floor rule is undeclared)")
                continue
            }
            var line = "\(cell): floor \(mb(excess.floorBytes)) MB; exact heap peak \(mb(excess.heapBytes)) MB over it"
            if !excess.byRole.isEmpty { line += ": " + excess.rolesText }
            let rss = runs.compactMap { run in
                run.peakRSSDeltaBytes.flatMap { delta in run.floorBytes.map { delta - $0 } }
            }
            if let median = Distribution(rss.map(Double.init))?.median {
                line += "; peak RSS \(mb(Int(median.rounded()))) MB over it (median)"
            }
            lines.append(line)
        }
        guard !lines.isEmpty else { return "" }
        return "Above the floor (the least each cell's contract needs at once, computed from the image;"
            + " the excess by role at the median exact heap peak; docs/MEASUREMENT.md):\n"
            + lines.map { "  " + $0 + "\n" }.joined()
    }

    static func medianHeapRun(_ runs: [TrialResult]) -> TrialResult? {
        let measured = runs.filter { $0.peakHeapExactBytes != nil }
            .sorted { ($0.peakHeapExactBytes!, $0.run) < ($1.peakHeapExactBytes!, $1.run) }
        return measured.isEmpty ? nil : measured[(measured.count - 1) / 2]
    }

    static func mb(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1e6) }
}
