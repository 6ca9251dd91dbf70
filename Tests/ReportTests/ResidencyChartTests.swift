import BenchCore
import Foundation
import Report
import Testing

/// residency.dat: per article case, the RSS bar by category and the heap bar by role, with the floor.
@Suite struct ResidencyChartTests {
    static func dataTask(run: Int, rss: Int) -> TrialResult {
        var trial = okRow(TrialCell(strategy: "data", render: .none, allocator: .system), run: run)
        trial.baselineRSSBytes = 40_000_000
        trial.peakRSSBytes = 40_000_000 + rss
        trial.baselineHeapExactBytes = 300_000
        trial.peakHeapExactBytes = 29_500_000
        trial.floorBytes = 13_000_000
        trial.residency =
            ResidencyRow.rows(
                moment: .rssPeak,
                rssDelta: rss,
                deltas: [
                    .heapHolders: rss - 1_000_000,
                    .allocatorFree: 600_000,
                ]
            )
            + ResidencyRow.rows(moment: .end, rssDelta: 1_000_000, deltas: [:])
        return trial
    }

    /// The median run by peak RSS (26.0 of 25.0, 26.0, 27.0); its holders by role, `other` the rest of
    /// the exact heap peak over the baseline (29.2 less 16.0 and 13.0); the floor on the RSS row only.
    @Test func eachCaseHasAnRSSBarAndAHeapBarWithTheFloor() throws {
        let trials = [(1, 25_000_000), (2, 26_000_000), (3, 27_000_000)].map { Self.dataTask(run: $0.0, rss: $0.1) }
        let holders = HolderRun(
            cell: trials[1].cell,
            run: 2,
            holders: [
                PeakHolder(
                    bytes: 16_000_000,
                    blocks: 1,
                    allocatedBy: "byAppending",
                    module: "",
                    stack: [],
                    role: .bodyBuffer
                ),
                PeakHolder(
                    bytes: 13_000_000,
                    blocks: 1,
                    allocatedBy: "completeTask",
                    module: "",
                    stack: [],
                    role: .body
                ),
            ],
            smallBlocksBytes: 500_000
        )
        let table = try #require(ResidencyChart(trials: trials, holders: [holders]).table())
        let rows = table.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.count == 3, "a header and two rows: \(table)")
        let header = rows[0].map { $0.replacingOccurrences(of: "\"", with: "") }
        // "RSS: heap-holders" is two words in the header: compare by the values' positions instead.
        #expect(header.first == "case" && header.last == "floor")
        let rss = Array(rows[1].dropFirst(2))
        let heap = Array(rows[2].dropFirst())
        #expect(rss.count == 14 && heap.count == 14)
        #expect(
            rss[0] == "25.000" && rss[2] == "0.600" && rss[6] == "0.400",
            "heap-holders, allocator-free, unattributed"
        )
        #expect(rss[13] == "13.000", "the floor")
        #expect(heap[7] == "13.000" && heap[8] == "16.000" && heap[12] == "0.200", "body, body-buffer, other")
        #expect(heap[13] == "NaN", "the floor once per case")
    }

    @Test func noResidencyNoChart() {
        var trial = Self.dataTask(run: 1, rss: 1_000_000)
        trial.residency = nil
        #expect(ResidencyChart(trials: [trial], holders: []).table() == nil)
    }
}
