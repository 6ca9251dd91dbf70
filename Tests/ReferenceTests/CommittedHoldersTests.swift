import BenchCore
import Foundation
import ReferenceDocuments
import Report
import Testing

/// results/holders/ (bench-reference measure holders) against what REPORT.md says of it: the data task's two
/// copies are FoundationNetworking's, a full render's largest holder is the decoder's bitmap, every
/// bimodal cell is explained by a holder at least as large as the gap between its modes, and every
/// run's holders.csv rows add up to its exact heap peak.
@Suite struct CommittedHoldersTests {
    static let folder = CommittedReportTests.results.appendingPathComponent("holders")

    static func trials() throws -> [TrialResult] {
        try JSONDecoder.trials.decode(
            JSONExport.self,
            from: Data(contentsOf: folder.appendingPathComponent("trials.json"))
        ).trials
    }

    @Test func theDataTasksMedianRunsHoldFoundationNetworkingsBufferAndItsCopy() throws {
        let trials = try Self.trials()
        let payload = Double(try #require(trials.compactMap(\.payloadBytes).max()))
        for allocator in Allocator.allCases {
            let median = try #require(
                TrialResult.medianHolderRun(
                    trials.filter { $0.cell == TrialCell(strategy: "data", render: .none, allocator: allocator) }
                )
            )
            let networking = (median.holders ?? []).filter { $0.module == "libFoundationNetworking.so" }
            #expect(networking.count == 2, "\(allocator): \(networking.map(\.allocatedBy))")
            let sizes = networking.map(\.bytes).sorted()
            // The copy (jemalloc rounds it up to its size class) and the 16 MiB buffer.
            #expect(sizes.first.map { Double($0) >= payload && Double($0) <= payload * 1.25 } == true, "\(sizes)")
            #expect(sizes.last.map { abs(Double($0) / 16_777_216 - 1) <= 0.01 } == true, "\(sizes)")
        }
    }

    @Test func aFullRendersLargestHolderIsTheBitmap() throws {
        for run in try Self.trials() where run.render == .full && run.isSuccess {
            let largest = try #require(run.holders?.first, "\(run.cell) run \(run.run)")
            let bitmap = Double(try #require(run.imageWidth) * (run.imageHeight ?? 0) * 4)
            #expect(
                Double(largest.bytes) >= bitmap && Double(largest.bytes) <= bitmap * 1.25,
                "\(run.cell) run \(run.run): \(largest.bytes)"
            )
            #expect(largest.allocatedBy.hasPrefix("DecodedImage.init"), "\(largest.allocatedBy)")
        }
    }

    /// Each bimodal cell's row names the holders whose changes make its gap: they add up to it.
    @Test func everyBimodalCellsListedChangesAddUpToItsGap() throws {
        let figures = try ResultsReport(directory: CommittedReportTests.results).load()
        let table = try #require(
            GeneratedSections.block("holders-bimodal", in: try CommittedReportTests.read("REPORT.md"))
        )
        let rows = MarkdownTable.parse(table).dropFirst()
        #expect(rows.count == Int(figures.values()["holders_bimodal_cells"] ?? ""), "one row per bimodal cell")
        for row in rows {
            let peaks = row[2].split(separator: "/").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            let changes = row[3].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let grew = try changes.map { try #require(Double($0.prefix { $0 != " " }), "\(row)") }
            #expect(
                peaks.count == 2 && abs((peaks[1] - peaks[0]) - grew.reduce(0, +)) <= 0.5,
                "the listed changes make the gap: \(row)"
            )
        }
    }

    @Test func holdersCSVRowsAddUpToEachRunsExactHeapPeak() throws {
        let runs = try HoldersCSV.parse(
            String(contentsOf: Self.folder.appendingPathComponent("holders.csv"), encoding: .utf8)
        )
        let trials = try Self.trials().filter(\.isSuccess)
        #expect(runs.count == trials.count)
        for trial in trials {
            let run = try #require(runs.first { $0.cell == trial.cell && $0.run == trial.run })
            #expect(run.totalBytes == trial.peakHeapExactBytes, "\(trial.cell) run \(trial.run)")
            #expect(run.smallBlocksBytes >= 0 && run.smallBlocksBytes < 3_000_000, "\(trial.cell) run \(trial.run)")
        }
    }
}
