import BenchCore
import Foundation
import Testing

/// The gate's rule on rows made in memory; the command's exit codes are tested on files in HarnessTests.
@Suite struct GateComparisonTests {
    static let thresholds = GateThresholds(
        significanceLevel: 0.05,
        cvWarningPercent: 10,
        metrics: [.peakRSSDelta: Tolerance(absoluteBytes: 2_000_000, relativePercent: 5)]
    )

    /// Rows of one cell whose peak RSS delta are `peaks`, in bytes.
    func runs(
        _ peaks: [Int],
        strategy: String = "data",
        render: RenderMode = .full,
        status: TrialStatus = .ok
    ) -> [TrialResult] {
        peaks.enumerated().map { index, peak in
            let cell = TrialCell(strategy: strategy, render: render, allocator: .system)
            var row = TrialResult(cell: cell, run: index + 1, pid: 1)
            row.status = status
            if status == .ok {
                row.baselineRSSBytes = 50_000_000
                row.peakRSSBytes = 50_000_000 + peak
            }
            return row
        }
    }

    func compare(_ baseline: [TrialResult], _ current: [TrialResult]) -> GateComparison {
        GateComparison(baseline: baseline, current: current, thresholds: Self.thresholds)
    }

    /// Ten runs around 100 MB with a little spread, shifted by `shift`.
    func around100MB(_ shift: Int = 0, count: Int = 10) -> [Int] {
        (0..<count).map { 100_000_000 + shift + ($0 * 37_000) % 200_000 }
    }

    @Test func tolerableGrowthPasses() {
        // +4 MB on 100 MB: above the absolute 2 MB, below the relative 5 %.
        let gate = compare(runs(around100MB()), runs(around100MB(4_000_000, count: 5)))
        #expect(gate.comparisons.map(\.verdict) == [.ok])
        #expect(gate.exitCode == .success)
    }

    @Test func consistentGrowthBeyondTheToleranceIsARegression() throws {
        let gate = compare(runs(around100MB()), runs(around100MB(13_000_000, count: 5)))
        let comparison = try #require(gate.comparisons.first)
        #expect(comparison.verdict == .regression)
        #expect(try #require(comparison.pGreater) < 0.05)
        #expect(gate.exitCode == .regression)
    }

    @Test func oneWildRunDoesNotFailTheGate() {
        var current = around100MB(count: 5)
        current[2] += 80_000_000
        let gate = compare(runs(around100MB()), runs(current))
        #expect(gate.comparisons.map(\.verdict) == [.ok])
        #expect(gate.exitCode == .success)
    }

    /// The median moved past the tolerance, but half the baseline runs were as high: not significant.
    @Test func aShiftTheRunsDoNotSupportIsUnconfirmedAndPasses() throws {
        let baseline = around100MB(count: 5) + around100MB(17_000_000, count: 4)
        let current = around100MB(count: 2) + around100MB(17_000_000, count: 3)
        let gate = compare(runs(baseline), runs(current))
        let comparison = try #require(gate.comparisons.first)
        #expect(try #require(comparison.change) > comparison.allowed!)
        #expect(comparison.verdict == .unconfirmed)
        #expect(gate.exitCode == .success)
    }

    @Test func improvementsAreReportedAndPass() {
        let gate = compare(runs(around100MB()), runs(around100MB(-30_000_000, count: 5)))
        #expect(gate.comparisons.map(\.verdict) == [.improvement])
        #expect(gate.exitCode == .success)
    }

    @Test func tooFewRunsForTheTestLeaveTheThresholdToDecideAndSaySo() {
        let gate = compare(runs(around100MB(count: 3)), runs([100_000_000 + 13_000_000]))
        #expect(gate.comparisons.map(\.verdict) == [.regression])
        #expect(gate.warnings.contains { $0.contains("too few for the significance test") })
    }

    /// The committed settings: level 0.005.
    static let committedLevel = GateThresholds(
        significanceLevel: 0.005,
        cvWarningPercent: 10,
        metrics: [.peakRSSDelta: Tolerance(absoluteBytes: 2_000_000, relativePercent: 5)]
    )

    /// Peak RSS in whole 4 KiB pages, as the kernel counts it: runs tie.
    func pages(_ megabytes: [Double]) -> [Int] { megabytes.map { Int($0 * 1e6 / 4096) * 4096 } }

    /// A data task grown from 26.4 MB to 59.6 MB, every new run above every old
    /// one, 5 runs against 5 (the default), RSS in pages so some runs tie. The normal
    /// approximation cannot go below p = 0.0052 here (0.0061 with other ties) and calls it
    /// "unconfirmed"; the exact test gives 1/252 = 0.00397 < 0.005: a regression.
    @Test func completeSeparationOfFiveAgainstFiveInPagesIsARegressionAtTheCommittedLevel() throws {
        let baseline = pages([26.4, 26.4, 26.4, 26.41, 26.41])
        let current = pages([59.6, 59.6, 59.61, 59.61, 59.62])
        let gate = GateComparison(baseline: runs(baseline), current: runs(current), thresholds: Self.committedLevel)
        let comparison = try #require(gate.comparisons.first)
        #expect(comparison.verdict == .regression)
        #expect(abs(try #require(comparison.pGreater) - 1.0 / 252) < 1e-15)
        #expect(abs(try #require(comparison.smallestP) - 1.0 / 252) < 1e-15)
        #expect(gate.exitCode == .regression)
        #expect(!gate.warnings.contains { $0.contains("too few") })
    }

    /// Ties across the two samples raise the smallest reachable p: 5 current runs all equal to the
    /// highest baseline run can reach only 6/252 = 0.0238. The warning comes from that, not from
    /// the run counts alone (5 against 5 would pass a count-only check at 1/252).
    @Test func theTooFewRunsWarningFollowsTheObservedTies() throws {
        let baseline = pages([26.4, 26.4, 26.4, 26.4, 59.6])
        let current = pages([59.6, 59.6, 59.6, 59.6, 59.6])
        let gate = GateComparison(baseline: runs(baseline), current: runs(current), thresholds: Self.committedLevel)
        let comparison = try #require(gate.comparisons.first)
        #expect(abs(try #require(comparison.smallestP) - 6.0 / 252) < 1e-15)
        // The threshold alone decides, and says so with the number.
        #expect(comparison.verdict == .regression)
        #expect(gate.warnings.contains { $0.contains("too few for the significance test") && $0.contains("0.0238") })
    }

    @Test func failedRunsAndMissingCellsOutrankARegression() {
        let baseline = runs(around100MB()) + runs(around100MB(), render: .none)
        let regressedAndMissing = compare(baseline, runs(around100MB(13_000_000, count: 5)))
        #expect(regressedAndMissing.cellVerdicts.map(\.verdict) == [.regression, .missing])
        #expect(regressedAndMissing.exitCode == .runFailed)

        let failed = compare(
            baseline,
            runs(around100MB(count: 4)) + runs([0], status: .httpError)
                + runs(around100MB(), render: .none)
        )
        #expect(failed.cellVerdicts.map(\.verdict) == [.failed, .ok])
        #expect(failed.exitCode == .runFailed)
    }

    @Test func cellsOnlyCurrentHasAreNewAndPass() {
        let gate = compare(
            runs(around100MB()),
            runs(around100MB(count: 5)) + runs([1_000_000], strategy: "curl-memory")
        )
        #expect(gate.cellVerdicts.map(\.verdict).sorted() == [.ok, .new])
        #expect(gate.exitCode == .success)
    }

    @Test func aBaselineCellWithoutSuccessfulRunsIsNoBaseline() {
        let gate = compare(runs([0, 0], status: .timeout), runs(around100MB(count: 5)))
        #expect(gate.comparisons.map(\.verdict) == [.noBaseline])
        #expect(gate.exitCode == .noBaseline)
    }

    @Test func highSpreadWarnsOnlyWhereItCanMatter() {
        let noisyLarge = [60_000_000, 100_000_000, 140_000_000, 80_000_000, 120_000_000]
        let noisySmall = [100_000, 300_000, 500_000, 200_000, 400_000]
        let gate = compare(
            runs(around100MB()) + runs(noisySmall, render: .none),
            runs(noisyLarge) + runs(noisySmall, render: .none)
        )
        #expect(gate.warnings.filter { $0.contains("unstable") }.count == 1)
        #expect(
            gate.warnings.contains {
                $0.contains("data+full [system]") && $0.contains("unstable in CURRENT") && $0.contains("--runs")
            }
        )
    }

    /// A p just below the level must not print as the level itself ("%.3f" prints 0.005).
    @Test func pValuesBesideTheLevelPrintDistinctly() {
        #expect(GateReport.pValue(15.0 / 3003) == "0.004995")
        #expect(GateReport.pValue(1.0 / 3003) == "0.000333")
        #expect(GateReport.pValue(1) == "1")
    }

    @Test func theTableNamesEveryCellAndTheRegressedOne() {
        let gate = compare(
            runs(around100MB()) + runs(around100MB(), render: .none),
            runs(around100MB(13_000_000, count: 5)) + runs(around100MB(count: 5), render: .none)
        )
        let text = GateReport.render(gate, format: .text)
        #expect(text.contains("data+full [system]") && text.contains("data+none [system]"))
        #expect(text.contains("REGRESSION"))
        #expect(text.contains("regressed: data+full [system]\n"))
        let markdown = GateReport.render(gate, format: .markdown)
        #expect(markdown.contains("| cell | metric |"))
        #expect(markdown.contains("**REGRESSION**"))
    }
}

extension GateComparisonTests {
    /// A cold first request costs a few MB more than a warmed-up one: such runs measured different things.
    @Test func warmAndColdRunsDoNotCompare() {
        func rows(warmedUp: Bool?) -> [TrialResult] {
            runs([26_000_000, 26_100_000]).map {
                var row = $0
                row.warmedUp = warmedUp
                return row
            }
        }
        let refused = GateCompatibility.differences(baseline: rows(warmedUp: true), current: rows(warmedUp: false))
        #expect(refused.count == 1)
        #expect(refused.first?.contains("warm-up differs: baseline warm, current cold") == true)
        #expect(GateCompatibility.differences(baseline: rows(warmedUp: true), current: rows(warmedUp: true)).isEmpty)
        // Files from before the column (the committed baseline) compare with either.
        #expect(GateCompatibility.differences(baseline: rows(warmedUp: nil), current: rows(warmedUp: false)).isEmpty)
    }
}
