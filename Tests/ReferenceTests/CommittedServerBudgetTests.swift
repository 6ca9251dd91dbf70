import BenchCore
import Foundation
import ReferenceDocuments
import Testing

/// What REPORT.md's "A budget that bounds the peak" says of the committed study (results/server-budget/),
/// checked against its server.csv files: the heap stays under the budget in every run of the bound, and
/// RSS with it under jemalloc; on the mixed corpus admitting everything passes the budget, while the
/// count and the budget both stay under it, the count holding the least at about the same throughput.
@Suite struct CommittedServerBudgetTests {
    static let folder = CommittedReportTests.results.appendingPathComponent("server-budget")

    func rows(_ name: String) throws -> [[String: String]] {
        try #require(try CSVRows.load(Self.folder.appendingPathComponent(name).appendingPathComponent("server.csv")))
            .rows
    }

    func number(_ row: [String: String], _ column: String) throws -> Double {
        try #require(row[column].flatMap(Double.init), "\(column) in \(row)")
    }

    @Test func theHeapStaysUnderTheBudgetInEveryRunOfTheBound() throws {
        let bound = try rows("bound")
        #expect(bound.count >= 16)
        for row in bound {
            #expect(row["status"] == "ok", "\(row)")
            let budget = try number(row, "budget_bytes")
            let heap = try number(row, "peak_heap_exact_delta_bytes")
            #expect(heap > 0 && heap <= budget, "\(row["strategy"]!)/\(row["render"]!) C \(row["concurrency"]!)")
            #expect(try number(row, "reserved_max_bytes") <= budget)
            #expect(try number(row, "overruns") == 0)
            if row["allocator"] == "jemalloc" {
                let rss = try number(row, "peak_rss_delta_bytes")
                #expect(rss > 0 && rss <= budget, "RSS under jemalloc: \(row)")
            }
        }
    }

    @Test func onTheMixedCorpusTheCountAndTheBudgetHoldWhereNothingDoesNot() throws {
        let budget = try number(try #require(try rows("budget").first), "budget_bytes")
        func worst(_ name: String) throws -> Double {
            try rows(name).map { try number($0, "peak_heap_exact_delta_bytes") }.max() ?? 0
        }
        func medianThroughput(_ name: String) throws -> Double {
            let values = try rows(name).map { try number($0, "throughput_rps") }.sorted()
            return values[values.count / 2]
        }
        #expect(try worst("unbounded") > budget)
        #expect(try worst("budget") > 0 && worst("budget") <= budget)
        #expect(try worst("workers") > 0 && worst("workers") < worst("budget"))
        let ratio = try medianThroughput("workers") / medianThroughput("unbounded")
        #expect(ratio > 0.9 && ratio < 1.1, "the count's throughput against nothing's: \(ratio)")
    }
}
