import BenchCore
import Foundation
import Report
import Testing

/// results/REPORT.md's AsyncHTTPClient table against the committed run of the example package
/// (results/example/trials.csv, `bench-reference measure example`): every cell's medians recomputed from the CSV, and
/// the relation the prose rests on, on the committed rows.
@Suite struct CommittedExampleTests {
    static let folder = CommittedReportTests.results.appendingPathComponent("example")

    static func rows() throws -> [TrialResult] {
        try TrialsCSV.parse(String(contentsOf: folder.appendingPathComponent("trials.csv"), encoding: .utf8))
    }

    @Test func exampleTableShowsTheMediansOfItsTrialsCSV() throws {
        let summaries = CellSummary.summarize(try Self.rows())
        let table = try #require(GeneratedSections.block("example", in: try CommittedReportTests.read("REPORT.md")))
        let rows = MarkdownTable.parse(table)
        let header = try #require(rows.first)
        var compared = 0
        for summary in summaries {
            let row = try #require(
                rows.first { $0[0] == summary.cell.strategy && $0[1] == summary.cell.render.rawValue },
                "no row for \(summary.cell)"
            )
            let column = try #require(header.firstIndex(of: "\(summary.cell.allocator.title): peak RSS"))
            #expect(
                row[column] == CommittedReportTests.mb(try #require(summary.peakRSSDelta).median),
                "\(summary.cell)"
            )
            #expect(
                row[column + 1] == CommittedReportTests.mb(try #require(summary.peakHeapExactDelta).median),
                "\(summary.cell)"
            )
            compared += 1
        }
        // AsyncHTTPClient's two strategies and URLSession's two; none, full, thumbnail and the example's
        // own decode-then-resize; both allocators.
        #expect(compared == 4 * 4 * 2)
    }

    /// Collecting the body holds at least one payload more heap than streaming it to a file, and
    /// less than three more (a power-of-two buffer and the half-size block a moving realloc keeps).
    @Test(arguments: Allocator.allCases)
    func collectedBodyHoldsOneToThreePayloadsMoreHeapThanTheFile(allocator: Allocator) throws {
        let rows = try Self.rows().filter { $0.allocator == allocator && $0.render == .none && $0.isSuccess }
        func heap(_ strategy: String) throws -> Double {
            try #require(Distribution(rows.filter { $0.strategy == strategy }.compactMap(\.peakHeapExactDeltaBytes)))
                .median
        }
        let payload = Double(try #require(rows.compactMap(\.payloadBytes).max()))
        let extra = try heap("ahc-collect") - heap("ahc-file")
        #expect(extra >= payload && extra <= 3 * payload, "\(allocator): \(extra) bytes more, payload \(payload)")
    }

    /// The example's decode-then-resize renderer on the committed rows (download task, glibc): the
    /// peak holds the full bitmap and the small one (at least both; at most the full decode's peak
    /// and the small bitmap), and the final reading holds neither the full bitmap nor less than the small one.
    @Test func decodeThenResizePeaksAsAFullDecodeAndEndsAsAThumbnail() throws {
        let rows = try Self.rows().filter { $0.strategy == "download" && $0.allocator == .system && $0.isSuccess }
        let resized = rows.filter { $0.render.rawValue == "decode-then-resize" }
        let full = rows.filter { $0.render == .full }
        let bitmap = Double(
            try #require(
                full.first.flatMap { row in row.imageWidth.flatMap { w in row.imageHeight.map { w * $0 * 4 } } }
            )
        )
        let small = Double(
            try #require(
                resized.first.flatMap { row in row.imageWidth.flatMap { w in row.imageHeight.map { w * $0 * 4 } } }
            )
        )
        func median(_ rows: [TrialResult], _ value: (TrialResult) -> Int?) throws -> Double {
            try #require(Distribution(rows.compactMap(value).map(Double.init))).median
        }
        let peak = try median(resized, \.peakHeapExactDeltaBytes)
        let fullPeak = try median(full, \.peakHeapExactDeltaBytes)
        #expect(
            peak >= bitmap + small && peak <= fullPeak + small,
            "peak \(peak); full bitmap \(bitmap), small \(small), full's peak \(fullPeak)"
        )
        let final = try median(resized, \.finalRSSDeltaBytes)
        #expect(final >= small && final <= small + 2_000_000, "final \(final); small bitmap \(small)")
    }
}
