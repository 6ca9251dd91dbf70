import BenchCore
import Foundation
import Testing

/// Ranking cells by their median peak, and the per-strategy "copies" table.
@Suite struct RankingTests {
    static let payload = 10_000_000

    static func rows(
        _ strategy: String,
        _ render: RenderMode,
        _ allocator: Allocator = .system,
        peaks: [Int],
        failed: Int = 0
    ) -> [TrialResult] {
        let cell = TrialCell(strategy: strategy, render: render, allocator: allocator)
        let ok = peaks.map { peak -> TrialResult in
            var row = TrialResult(cell: cell, run: 1, pid: 1)
            row.baselineRSSBytes = 5_000_000
            row.peakRSSBytes = 5_000_000 + peak
            row.payloadBytes = payload
            return row
        }
        let broken = (0..<failed).map { _ -> TrialResult in
            var row = TrialResult(cell: cell, run: 1, pid: 1)
            row.status = .transportError
            return row
        }
        return ok + broken
    }

    @Test func cellsAreRankedByMedianPeakWithFailedCellsLast() {
        let results =
            Self.rows("data", .none, peaks: [20_000_000, 21_000_000, 40_000_000])
            + Self.rows("broken", .none, peaks: [], failed: 2)
            + Self.rows("download", .none, peaks: [300_000, 200_000, 90_000_000])
            + Self.rows("curl-memory", .none, peaks: [10_000_000])
        let ranked = CellSummary.rankedByPeakRSSDelta(CellSummary.summarize(results)).map(\.cell.strategy)
        #expect(ranked == ["download", "curl-memory", "data", "broken"])
    }

    @Test func equalMediansKeepTheirMatrixOrder() {
        let results = Self.rows("b", .none, peaks: [1_000_000]) + Self.rows("a", .none, peaks: [1_000_000])
        #expect(CellSummary.rankedByPeakRSSDelta(CellSummary.summarize(results)).map(\.cell.strategy) == ["b", "a"])
    }

    @Test func copiesTableDividesTheMedianPeakByThePayload() {
        let results =
            Self.rows("data", .none, peaks: [20_000_000, 21_000_000, 19_000_000])
            + Self.rows("data", .full, .jemalloc, peaks: [116_000_000])
            + Self.rows("curl-file", .none, peaks: [500_000])
        let table = PayloadCopiesTable.render(CellSummary.summarize(results))
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[1].split(separator: " ") == ["strategy", "none/system", "full/jemalloc"])
        #expect(lines[3].split(separator: " ") == ["data", "2.00", "11.60"])
        #expect(lines[4].split(separator: " ") == ["curl-file", "0.05", "-"], "a cell not measured is a dash")
    }
}
