import Foundation

/// What grew in RSS: for a cell that regressed (or grew unconfirmed), the residency categories whose
/// bytes at the RSS peak changed most between the two sides' median runs (by peak RSS).
package struct ResidencyChange: Sendable, Equatable {
    package var category: ResidencyCategory
    package var bytes: Int

    package init(category: ResidencyCategory, bytes: Int) {
        self.category = category
        self.bytes = bytes
    }
}

package enum ResidencyDiff: Sendable, Equatable {
    case changes([ResidencyChange])
    /// One side's median run has no residency (a file from before it was recorded): nothing can be named.
    case unmeasured(side: String)
}

extension GateComparison {
    /// The successful run with residency whose peak RSS delta is the median (the lower middle of an even count).
    static func medianResidencyRun(_ runs: [TrialResult]) -> TrialResult? {
        let measured = runs.filter { $0.isSuccess && $0.residency != nil && $0.peakRSSDeltaBytes != nil }
            .sorted { ($0.peakRSSDeltaBytes!, $0.run) < ($1.peakRSSDeltaBytes!, $1.run) }
        return measured.isEmpty ? nil : measured[(measured.count - 1) / 2]
    }

    /// The largest changes at the RSS peak first, at most `limit`, leaving out changes under 0.05 MB.
    package static func residencyDiff(
        baseline: [TrialResult],
        current: [TrialResult],
        limit: Int = 3
    ) -> ResidencyDiff {
        guard let old = medianResidencyRun(baseline) else { return .unmeasured(side: "BASELINE") }
        guard let new = medianResidencyRun(current) else { return .unmeasured(side: "CURRENT") }
        func bytes(_ run: TrialResult, _ category: ResidencyCategory) -> Int {
            run.residency(at: .rssPeak).first { $0.category == category }?.bytes ?? 0
        }
        let changes = ResidencyCategory.allCases.map { category in
            ResidencyChange(category: category, bytes: bytes(new, category) - bytes(old, category))
        }
        return .changes(
            Array(
                changes.filter { abs($0.bytes) >= 50_000 }
                    .sorted { (abs($0.bytes), $1.category.rawValue) > (abs($1.bytes), $0.category.rawValue) }.prefix(
                        limit
                    )
            )
        )
    }
}
