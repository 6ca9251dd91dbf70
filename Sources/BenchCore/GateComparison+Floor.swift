import Foundation

/// One cell's excess over its floor on each side (the median run by exact heap peak), and how
/// each role's excess changed.
package struct FloorExcessPair: Sendable, Equatable {
    package var baseline: FloorExcess?
    package var current: FloorExcess?

    /// Each role's change of excess, current less baseline, largest first, leaving out changes
    /// under 0.05 MB; empty unless both sides have roles.
    package var roleChanges: [FloorExcess.RoleExcess] {
        guard let baseline, let current, !baseline.byRole.isEmpty, !current.byRole.isEmpty else { return [] }
        return HolderRole.allCases.compactMap { role in
            let before = baseline.byRole.first { $0.role == role }
            let after = current.byRole.first { $0.role == role }
            let change = (after?.bytes ?? 0) - (before?.bytes ?? 0)
            guard abs(change) >= 50_000 else { return nil }
            return FloorExcess.RoleExcess(role: role, bytes: change, largestHolder: after?.largestHolder ?? "")
        }.sorted { (abs($0.bytes), $1.role.rawValue) > (abs($1.bytes), $0.role.rawValue) }
    }
}

extension GateComparison {
    static func floorExcesses(
        baseline: [TrialCell: [TrialResult]],
        current: [TrialCell: [TrialResult]]
    ) -> [TrialCell: FloorExcessPair] {
        var pairs: [TrialCell: FloorExcessPair] = [:]
        for cell in Set(baseline.keys).union(current.keys) {
            func excess(_ runs: [TrialResult]?) -> FloorExcess? {
                let ok = (runs ?? []).filter(\.isSuccess)
                return (TrialResult.medianHolderRun(ok) ?? FloorTable.medianHeapRun(ok)).flatMap(FloorExcess.of)
            }
            let pair = FloorExcessPair(baseline: excess(baseline[cell]), current: excess(current[cell]))
            if pair.baseline != nil || pair.current != nil { pairs[cell] = pair }
        }
        return pairs
    }
}
