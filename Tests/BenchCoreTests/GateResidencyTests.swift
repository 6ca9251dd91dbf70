import BenchCore
import Foundation
import Testing

/// `bench compare` names the residency categories that changed in a grown cell, like its holders.
@Suite struct GateResidencyTests {
    static let thresholds = GateThresholds(
        significanceLevel: 0.05,
        cvWarningPercent: 10,
        metrics: [.peakRSSDelta: Tolerance(absoluteBytes: 2_000_000, relativePercent: 5)]
    )

    /// Five runs of data+none whose RSS peak is `heapHolders` + 0.3 MB of small blocks + `allocatorFree`
    /// (+ a few KB a run, so that the median run is the third).
    func runs(heapHolders: Int, allocatorFree: Int, withResidency: Bool = true) -> [TrialResult] {
        (1...5).map { run in
            let cell = TrialCell(strategy: "data", render: .none, allocator: .system)
            var row = TrialResult(cell: cell, run: run, pid: 1)
            row.status = .ok
            let delta = heapHolders + 300_000 + allocatorFree + run * 4_000
            row.baselineRSSBytes = 50_000_000
            row.peakRSSBytes = 50_000_000 + delta
            if withResidency {
                row.residency = ResidencyRow.rows(
                    moment: .rssPeak,
                    rssDelta: delta,
                    deltas: [
                        .heapHolders: heapHolders, .smallHeapBlocks: 300_000, .allocatorFree: allocatorFree,
                    ]
                )
            }
            return row
        }
    }

    /// An extra 13.1 MB resident body copy and 6.8 MB more kept by the allocator: named, largest first,
    /// the unchanged small blocks and the few KB of unattributed left out.
    @Test func aGrownCellNamesTheCategoriesThatGrew() throws {
        let gate = GateComparison(
            baseline: runs(heapHolders: 13_100_000, allocatorFree: 0),
            current: runs(heapHolders: 26_200_000, allocatorFree: 6_800_000),
            thresholds: Self.thresholds
        )
        let cell = TrialCell(strategy: "data", render: .none, allocator: .system)
        #expect(gate.cellVerdicts.first { $0.cell == cell }?.verdict == .regression)
        #expect(
            gate.residencyDiffs[cell]
                == .changes([
                    ResidencyChange(category: .heapHolders, bytes: 13_100_000),
                    ResidencyChange(category: .allocatorFree, bytes: 6_800_000),
                ])
        )
        let text = GateReport.render(gate, format: .text)
        #expect(text.contains("What grew in RSS"))
        #expect(text.contains("data+none [system]: +13.10 MB heap-holders; +6.80 MB allocator-free\n"), "\(text)")
    }

    /// A baseline from before residency: the cell is not named, and the report says why.
    @Test func aBaselineWithoutResidencyIsSaid() {
        let gate = GateComparison(
            baseline: runs(heapHolders: 13_100_000, allocatorFree: 0, withResidency: false),
            current: runs(heapHolders: 26_200_000, allocatorFree: 0),
            thresholds: Self.thresholds
        )
        let cell = TrialCell(strategy: "data", render: .none, allocator: .system)
        #expect(gate.residencyDiffs[cell] == .unmeasured(side: "BASELINE"))
        #expect(GateReport.render(gate, format: .text).contains("BASELINE has no residency"))
    }

    /// A cell within the tolerance names nothing.
    @Test func anUnchangedCellNamesNothing() {
        let gate = GateComparison(
            baseline: runs(heapHolders: 13_100_000, allocatorFree: 0),
            current: runs(heapHolders: 13_100_000, allocatorFree: 0),
            thresholds: Self.thresholds
        )
        #expect(gate.residencyDiffs.isEmpty)
        #expect(!GateReport.render(gate, format: .text).contains("What grew in RSS"))
    }
}
