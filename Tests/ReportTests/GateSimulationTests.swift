import BenchCore
import Foundation
import ReferenceDocuments
import Testing

/// The maintainers' simulation of the gate's false alarms on a two-mode cell, on rows made in memory.
@Suite struct GateSimulationTests {
    static let tolerance = Tolerance(absoluteBytes: 2_000_000, relativePercent: 5)

    /// data+full rows of `allocator` whose exact heap peak over the baseline is each of `peaks`.
    static func rows(_ peaks: [Int], allocator: Allocator = .jemalloc) -> [TrialResult] {
        peaks.enumerated().map { index, peak in
            var row = okRow(TrialCell(strategy: "data", render: .full, allocator: allocator), run: index + 1)
            row.baselineHeapExactBytes = 1_000_000
            row.peakHeapExactBytes = 1_000_000 + peak
            return row
        }
    }

    /// Ten runs near 110 MB spread over 200 KB, `high` of them 16.8 MB higher.
    static func baseline(high: Int) -> [TrialResult] {
        rows(
            (0..<10).map {
                110_000_000 + ($0 * 37_000) % 200_000 + ($0 < high ? Int(GateSimulation.highModeBytes) : 0)
            }
        )
    }

    static func simulate(_ baseline: [TrialResult], rate: Double?, gates: Int = 4_000) -> GateSimulation.Outcome? {
        var simulation = GateSimulation()
        simulation.gates = gates
        simulation.rate = rate
        return simulation.run(baseline: baseline, tolerance: tolerance).first
    }

    @Test func theRateIsTheBaselinesHighModeShareAndAtLeastOneInTen() throws {
        let two = try #require(Self.simulate(Self.baseline(high: 2), rate: nil, gates: 1))
        #expect(two.highRuns == 2 && two.baselineRuns == 10)
        #expect(abs(two.rate - 0.2) < 1e-12)
        let none = try #require(Self.simulate(Self.baseline(high: 0), rate: nil, gates: 1))
        #expect(none.highRuns == 0)
        #expect(abs(none.rate - 0.1) < 1e-12)
    }

    /// Runs all in one mode never move the median past the allowance: no gate is flagged.
    @Test func oneModeRaisesNoAlarm() throws {
        for rate in [0.0, 1.0] {
            let outcome = try #require(Self.simulate(Self.baseline(high: 1), rate: rate))
            #expect(outcome.flagged == [0.05: 0, 0.005: 0], "rate \(rate)")
        }
    }

    /// With 3 runs in 10 high, some unchanged gates are flagged, fewer at the stricter level.
    @Test func twoModesRaiseAFewAlarmsFewerAtTheStricterLevel() throws {
        let outcome = try #require(Self.simulate(Self.baseline(high: 1), rate: 0.3))
        let loose = outcome.percentFlagged(at: 0.05)
        let strict = outcome.percentFlagged(at: 0.005)
        #expect(loose > 1 && loose < 10, "\(loose) % at 0.05")
        #expect(strict > 0 && strict < loose, "\(strict) % at 0.005 against \(loose) % at 0.05")
    }

    @Test func theSameSeedGivesTheSameFigures() throws {
        let first = Self.simulate(Self.baseline(high: 1), rate: 0.3)
        #expect(first != nil && first == Self.simulate(Self.baseline(high: 1), rate: 0.3))
    }

    @Test func aBaselineWithoutTheCellHasNoOutcome() {
        var simulation = GateSimulation()
        simulation.gates = 1
        #expect(simulation.run(baseline: [], tolerance: Self.tolerance).isEmpty)
    }
}
