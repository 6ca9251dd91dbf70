import Foundation
import ReferenceDocuments
import Testing

/// The committed corpus run (results/corpus/) holds the stream renderer's target on real photographs
/// of every size: an exact heap peak of at least its floor (the output bitmap) and at most 1.5 times it.
@Suite struct CorpusStreamTests {
    @Test func everyPhotographsStreamRenderIsNearItsFloor() throws {
        let figures = try CorpusAndJobsFigures.load(from: CommittedReportTests.results)
        let photos = figures.streamOverFloor().filter { $0.file.hasPrefix("photos/") }
        #expect(photos.count == 12)
        for photo in photos {
            #expect(photo.ratio >= 1 && photo.ratio <= 1.5, "\(photo.file): \(photo.ratio) times its floor")
        }
    }

    /// The ratio is each file's median heap over its floor, from the system allocator's successful runs only.
    @Test func theRatioIsTheMedianHeapOverTheFloor() {
        let header = ["file", "render", "allocator", "status", "peak_heap_exact_delta_bytes", "floor_bytes"]
        let rows = [
            ["photos/a.jpg", "stream", "system", "ok", "300", "100"],
            ["photos/a.jpg", "stream", "system", "ok", "120", "100"],
            ["photos/a.jpg", "stream", "system", "ok", "150", "100"],
            ["photos/a.jpg", "stream", "system", "decode_error", "900", "100"],
            ["photos/a.jpg", "stream", "jemalloc", "ok", "900", "100"],
            ["photos/a.jpg", "thumbnail", "system", "ok", "900", "100"],
            ["photos/b.png", "stream", "system", "ok", "110", ""],
        ]
        var figures = CorpusAndJobsFigures(corpus: nil, timings: nil, comparison: nil)
        figures.corpusRuns = CSVRows(rows: rows.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) })
        let ratios = figures.streamOverFloor()
        #expect(ratios.count == 1)
        #expect(ratios.first?.file == "photos/a.jpg" && ratios.first?.ratio == 1.5)
    }
}
