import Foundation

/// What grew: for a cell that regressed (or grew unconfirmed), the holders whose bytes at the
/// exact heap peak changed most between the two sides' median runs.
package struct HolderChange: Sendable, Equatable {
    package var allocatedBy: String
    package var module: String
    package var bytes: Int
}

package enum HolderDiff: Sendable, Equatable {
    case changes([HolderChange])
    /// One side's median run has no holders (a file from before they were recorded, or a run
    /// without the exact heap peak): nothing can be named.
    case unnamed(side: String)
}

extension GateComparison {
    /// The largest changes first, at most `limit`, leaving out changes under 0.05 MB.
    package static func holderDiff(baseline: [TrialResult], current: [TrialResult], limit: Int = 3) -> HolderDiff {
        guard let old = TrialResult.medianHolderRun(baseline) else { return .unnamed(side: "BASELINE") }
        guard let new = TrialResult.medianHolderRun(current) else { return .unnamed(side: "CURRENT") }
        func totals(_ run: TrialResult) -> [String: (module: String, bytes: Int)] {
            var totals: [String: (module: String, bytes: Int)] = [:]
            for holder in HoldersCSV.rows(of: run) {
                totals[holder.allocatedBy, default: (holder.module, 0)].bytes += holder.bytes
            }
            return totals
        }
        let before = totals(old)
        let after = totals(new)
        let changes = Set(before.keys).union(after.keys).map { name in
            HolderChange(
                allocatedBy: name,
                module: after[name]?.module ?? before[name]?.module ?? "",
                bytes: (after[name]?.bytes ?? 0) - (before[name]?.bytes ?? 0)
            )
        }
        return .changes(
            Array(
                changes.filter { abs($0.bytes) >= 50_000 }
                    .sorted { (abs($0.bytes), $0.allocatedBy) > (abs($1.bytes), $1.allocatedBy) }.prefix(limit)
            )
        )
    }
}
