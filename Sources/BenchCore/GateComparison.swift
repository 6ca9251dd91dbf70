import Foundation

/// What the gate concluded about one metric of one cell, best to worst for the build.
package enum GateVerdict: String, Sendable, Comparable {
    /// Smaller by more than the tolerance, and significantly so. Reported, never fails.
    case improvement
    case ok
    /// Grew by more than the tolerance, but the runs do not show it significantly (noise). Does not fail.
    case unconfirmed
    /// A cell only CURRENT has. Does not fail.
    case new
    /// The baseline has no successful run of this cell.
    case noBaseline = "no baseline"
    /// Grew by more than the tolerance, and significantly.
    case regression
    /// CURRENT lacks a cell of the baseline.
    case missing
    /// Some runs of the cell failed in CURRENT.
    case failed

    static let order: [GateVerdict] = [
        .improvement, .ok, .unconfirmed, .new, .noBaseline, .regression, .missing, .failed,
    ]
    package static func < (lhs: GateVerdict, rhs: GateVerdict) -> Bool {
        order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
    }

    /// The exit status this verdict asks for: a broken run (3) outranks a regression (2),
    /// which outranks a missing baseline cell (5).
    package var exitCode: BenchExitCode {
        switch self {
        case .improvement, .ok, .unconfirmed, .new: return .success
        case .noBaseline: return .noBaseline
        case .regression: return .regression
        case .missing, .failed: return .runFailed
        }
    }
}

/// A warning of the gate about one cell: it never changes the verdict; it says what makes the
/// verdict less sure (too few runs, high spread) or what failed.
package struct GateWarning: Sendable, Equatable {
    package enum Kind: CaseIterable, Sendable {
        case failedRuns, tooFewRuns, unstable
    }

    package var kind: Kind
    package var cell: TrialCell
    /// The whole warning, naming the cell, the metric and the figures.
    package var text: String
}

/// One metric of one cell, baseline against current.
package struct MetricComparison: Sendable {
    package var cell: TrialCell
    package var metric: GateMetric
    package var baseline: Distribution?
    package var current: Distribution?
    /// Growth of the median the tolerance allows (bytes).
    package var allowed: Double?
    /// One-sided Mann-Whitney p-values (exact, ties included): current above baseline, and current below.
    package var pGreater: Double?
    package var pLess: Double?
    /// The smallest p-value the exact test could give for these runs (their counts and ties).
    package var smallestP: Double?
    package var verdict: GateVerdict
    package var failedRuns: Int = 0

    package var change: Double? {
        guard let baseline, let current else { return nil }
        return current.median - baseline.median
    }
}

/// The gate's rule for one metric of one cell, both sides' runs successful and present: the median
/// grew by more than the allowance and the exact one-sided Mann-Whitney test confirms it at the
/// level; or, when the values' counts and ties make the level unreachable, the allowance decides
/// alone. `bench compare` judges with it, and so does the maintainers' simulation of its false alarms.
/// The exact tests run only when asked for: a change within the allowance is judged without them.
package struct GateRule: Sendable {
    package let baseline: [Double]
    package let current: [Double]
    /// Growth of the median the tolerance allows (bytes).
    package let allowed: Double
    /// The current median minus the baseline's.
    package let change: Double

    /// nil when either side has no run.
    package init?(baseline: [Double], current: [Double], tolerance: Tolerance) {
        guard let baselineMedian = Distribution(baseline)?.median, let currentMedian = Distribution(current)?.median
        else { return nil }
        self.baseline = baseline
        self.current = current
        allowed = tolerance.allowedGrowth(fromMedian: baselineMedian)
        change = currentMedian - baselineMedian
    }

    /// One-sided p-values (exact, ties included): current above baseline, and current below.
    package var pGreater: Double { MannWhitneyU.greater(current, than: baseline)?.pValue ?? 1 }
    package var pLess: Double { MannWhitneyU.greater(baseline, than: current)?.pValue ?? 1 }
    /// The smallest p-value the exact test could give for these runs (their counts and ties).
    package var smallestP: Double { MannWhitneyU.smallestPValue(current, baseline) }

    /// Whether the test can reach `level` at all.
    package func testable(at level: Double) -> Bool { smallestP < level }

    /// .regression, .unconfirmed, .improvement or .ok at the significance level `level`.
    package func verdict(at level: Double) -> GateVerdict {
        if change > allowed {
            return !testable(at: level) || pGreater < level ? .regression : .unconfirmed
        }
        if change < -allowed && (!testable(at: level) || pLess < level) { return .improvement }
        return .ok
    }
}

/// Compares CURRENT with BASELINE cell by cell, metric by metric.
///
/// The rule: a metric regresses when its median grew by more than its tolerance
/// (max of absolute bytes and relative percent of the baseline median) AND a one-sided
/// Mann-Whitney U test, exact with ties, says the current runs are larger than the baseline
/// runs at the configured level. The median alone ignores one wild run; the rank test alone would flag
/// tiny but consistent shifts; both together ask for a shift that is large and real.
/// When the samples are too small for the test ever to reach the level, the threshold
/// decides alone and a warning says so (a gate that cannot fail would be worse).
package struct GateComparison: Sendable {
    package var comparisons: [MetricComparison]
    /// Every warning, in cell order, with its kind (the report counts each kind once).
    package var cellWarnings: [GateWarning]
    /// Every warning's sentence.
    package var warnings: [String] { cellWarnings.map(\.text) }
    package var thresholds: GateThresholds
    /// For each cell that regressed or grew unconfirmed: the holders that changed most.
    package var holderDiffs: [TrialCell: HolderDiff] = [:]
    /// For the same cells: the residency categories at the RSS peak that changed most.
    package var residencyDiffs: [TrialCell: ResidencyDiff] = [:]
    /// For each cell with a floor on either side: both sides' excess over it.
    package var floorExcesses: [TrialCell: FloorExcessPair] = [:]

    package init(baseline: [TrialResult], current: [TrialResult], thresholds: GateThresholds) {
        self.thresholds = thresholds
        var comparisons: [MetricComparison] = []
        var warnings: [GateWarning] = []
        let baselineRuns = Dictionary(grouping: baseline, by: \.cell)
        let currentRuns = Dictionary(grouping: current, by: \.cell)
        let cells = Set(baselineRuns.keys).union(currentRuns.keys).sorted()

        for cell in cells {
            let oldRuns = (baselineRuns[cell] ?? []).filter(\.isSuccess)
            let newRuns = currentRuns[cell] ?? []
            let failedRuns = newRuns.filter { !$0.isSuccess }
            for metric in thresholds.comparedMetrics {
                let tolerance = thresholds.metrics[metric]!
                let old = oldRuns.compactMap { metric.value(of: $0) }.map(Double.init)
                let new = newRuns.filter(\.isSuccess).compactMap { metric.value(of: $0) }.map(Double.init)
                var comparison = MetricComparison(
                    cell: cell,
                    metric: metric,
                    baseline: Distribution(old),
                    current: Distribution(new),
                    verdict: .ok,
                    failedRuns: failedRuns.count
                )
                if baselineRuns[cell] == nil {
                    comparison.verdict = .new
                } else if newRuns.isEmpty {
                    comparison.verdict = .missing
                } else if old.isEmpty {
                    comparison.verdict = .noBaseline
                } else if !failedRuns.isEmpty || new.isEmpty {
                    comparison.verdict = .failed
                } else if let rule = GateRule(baseline: old, current: new, tolerance: tolerance) {
                    let smallestP = rule.smallestP
                    comparison.allowed = rule.allowed
                    comparison.pGreater = rule.pGreater
                    comparison.pLess = rule.pLess
                    comparison.smallestP = smallestP
                    comparison.verdict = rule.verdict(at: thresholds.significanceLevel)
                    if smallestP >= thresholds.significanceLevel {
                        warnings.append(
                            GateWarning(
                                kind: .tooFewRuns,
                                cell: cell,
                                text: String(
                                    format: "%@ %@: %d current vs %d baseline runs are too few for the "
                                        + "significance test at %g (with these ties the smallest reachable p is %.4f): "
                                        + "the threshold alone decides; use more runs",
                                    cell.description,
                                    metric.label,
                                    new.count,
                                    old.count,
                                    thresholds.significanceLevel,
                                    smallestP
                                )
                            )
                        )
                    }
                }
                warnings += Self.stabilityWarnings(
                    comparison,
                    tolerance: tolerance,
                    cvWarningPercent: thresholds.cvWarningPercent
                )
                .map { GateWarning(kind: .unstable, cell: cell, text: $0) }
                comparisons.append(comparison)
            }
            if !failedRuns.isEmpty {
                let reasons = Set(failedRuns.map { "\($0.status.rawValue): \($0.error)" }).sorted().prefix(3)
                warnings.append(
                    GateWarning(
                        kind: .failedRuns,
                        cell: cell,
                        text:
                            "\(cell): \(failedRuns.count) of \(newRuns.count) runs failed in CURRENT (\(reasons.joined(separator: "; ")))"
                    )
                )
            }
        }
        self.comparisons = comparisons
        self.cellWarnings = warnings
        for (cell, verdict) in cellVerdicts where verdict == .regression || verdict == .unconfirmed {
            holderDiffs[cell] = Self.holderDiff(baseline: baselineRuns[cell] ?? [], current: currentRuns[cell] ?? [])
            residencyDiffs[cell] = Self.residencyDiff(
                baseline: baselineRuns[cell] ?? [],
                current: currentRuns[cell] ?? []
            )
        }
        floorExcesses = Self.floorExcesses(baseline: baselineRuns, current: currentRuns)
    }

    /// High spread makes a gate flap or go blind. Medians below the absolute tolerance are
    /// left out: there the absolute allowance already absorbs a large relative wobble.
    static func stabilityWarnings(
        _ comparison: MetricComparison,
        tolerance: Tolerance,
        cvWarningPercent: Double
    ) -> [String] {
        [("BASELINE", comparison.baseline), ("CURRENT", comparison.current)].compactMap { side, distribution in
            guard let distribution, distribution.count > 1,
                abs(distribution.median) > Double(tolerance.absoluteBytes),
                distribution.coefficientOfVariation * 100 > cvWarningPercent
            else { return nil }
            return String(
                format: "%@ %@: unstable in %@ (CV %.1f%% over %d runs > %.0f%%); "
                    + "use more runs (--runs 10) or pin the benchmark to a quiet core (taskset -c 1)",
                comparison.cell.description,
                comparison.metric.label,
                side,
                distribution.coefficientOfVariation * 100,
                distribution.count,
                cvWarningPercent
            )
        }
    }

    /// The worst verdict per cell.
    package var cellVerdicts: [(cell: TrialCell, verdict: GateVerdict)] {
        var worst: [TrialCell: GateVerdict] = [:]
        for comparison in comparisons {
            worst[comparison.cell] = max(worst[comparison.cell] ?? .improvement, comparison.verdict)
        }
        return worst.keys.sorted().map { ($0, worst[$0]!) }
    }

    package var exitCode: BenchExitCode {
        let codes = Set(comparisons.map(\.verdict.exitCode))
        for code in [BenchExitCode.runFailed, .regression, .noBaseline] where codes.contains(code) { return code }
        return .success
    }
}

/// Whether two runs measured the same thing at all. A 9000x6000 image against a 6000x4000
/// baseline, or another set of strategies, is not a regression or an improvement: it is a
/// different benchmark, and the gate refuses it rather than judge it.
package enum GateCompatibility {
    /// One sentence per difference, naming the baseline's and the current run's values; empty when comparable.
    /// Values are taken from the successful rows that have them (a failed row has no payload or image).
    package static func differences(baseline: [TrialResult], current: [TrialResult]) -> [String] {
        var differences: [String] = []
        func values<T: Hashable>(_ rows: [TrialResult], _ value: (TrialResult) -> T?) -> Set<T> {
            Set(rows.filter(\.isSuccess).compactMap(value))
        }
        func list(_ items: Set<String>) -> String { items.isEmpty ? "none" : items.sorted().joined(separator: ", ") }

        let oldPayloads = values(baseline, \.payloadBytes)
        let newPayloads = values(current, \.payloadBytes)
        if !oldPayloads.isEmpty && !newPayloads.isEmpty && oldPayloads != newPayloads {
            differences.append(
                "payload size differs: baseline \(list(Set(oldPayloads.map { "\($0) bytes" }))), "
                    + "current \(list(Set(newPayloads.map { "\($0) bytes" })))"
            )
        }
        let dimensions: (TrialResult) -> String? = { row in
            guard let width = row.imageWidth, let height = row.imageHeight else { return nil }
            return "\(width)x\(height)"
        }
        let oldDimensions = values(baseline, dimensions)
        let newDimensions = values(current, dimensions)
        if !oldDimensions.isEmpty && !newDimensions.isEmpty && oldDimensions != newDimensions {
            differences.append(
                "image dimensions differ: baseline \(list(oldDimensions)), current \(list(newDimensions))"
            )
        }
        let warmth: (TrialResult) -> String? = { row in row.warmedUp.map { $0 ? "warm" : "cold" } }
        let oldWarmth = values(baseline, warmth)
        let newWarmth = values(current, warmth)
        if !oldWarmth.isEmpty && !newWarmth.isEmpty && oldWarmth != newWarmth {
            differences.append(
                "warm-up differs: baseline \(list(oldWarmth)), current \(list(newWarmth)) (a cold first request costs more)"
            )
        }
        let oldStrategies = Set(baseline.map(\.strategy))
        let newStrategies = Set(current.map(\.strategy))
        if oldStrategies != newStrategies {
            differences.append(
                "measured strategies differ: baseline \(list(oldStrategies)), current \(list(newStrategies))"
            )
        }
        return differences
    }
}
