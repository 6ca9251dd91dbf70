import BenchCore
import Foundation
import ReferenceDocuments
import Testing

/// `--memory-budget` admits by a predicted cost: it bounds the peak only if no request holds more than
/// predicted. Against every cell of the committed matrix (results/trials.csv: each strategy, renderer
/// and allocator on the article's image), the prediction of what a trial holds is at least the
/// measured exact heap peak, and not so far above it that a budget would admit far fewer requests
/// than fit: at most 1.5 times it plus the 4 MiB a streamed body's buffers are given and the 1 MiB
/// fixed share (on peaks of a few MB those are most of it).
@Suite struct PredictedCostTests {
    @Test func thePredictionCoversEveryCommittedCellWithoutWaste() throws {
        let rows = try #require(
            try CSVRows.load(CommittedReportTests.results.appendingPathComponent(TrialsCSV.fileName))
        )
        let figures = PredictedCostFigures.from(trials: rows.rows, maxPixel: 1024)
        #expect(figures.cells.count >= 40, "\(figures.cells.count) cells")
        for cell in figures.cells {
            let name = "\(cell.strategy)/\(cell.render)/\(cell.allocator)"
            #expect(
                Double(cell.predictedBytes) >= cell.measuredBytes,
                "\(name): \(cell.predictedBytes) < \(cell.measuredBytes)"
            )
            #expect(
                Double(cell.predictedBytes) <= 1.5 * cell.measuredBytes + Double(5 << 20),
                "\(name): \(cell.predictedBytes) for \(cell.measuredBytes) measured"
            )
        }
    }
}
