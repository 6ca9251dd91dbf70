import BenchCore
import Foundation
import Harness
import Imaging
import Probe
import Report
import TestSupport
import Testing

/// The thumbnail renderer measured for real, in children fetching the 6000x4000 fixture: it
/// decodes to the DCT scale that `--max-pixel` asks for, and never allocates the full bitmap.
@Suite(.serialized) struct ThumbnailTrialTests {
    /// File strategies, so the heap holds the decode and nothing of the fetch; `full` is the control
    /// that shows the heap counters do see a full-size bitmap when there is one.
    /// The harness's own failure (server or fixture) is kept, not hidden: every test that reads
    /// the rows rethrows it.
    static let measured = Result {
        try run(
            BenchmarkPlan(
                strategies: ["download", "curl-file"],
                renders: [.thumbnail, .full],
                allocators: Allocator.allCases,
                runs: 2
            )
        )
    }
    static var results: [TrialResult] { get throws { try measured.get() } }

    static func run(_ plan: BenchmarkPlan, maxPixel: Int = 1024) throws -> [TrialResult] {
        var settings = TrialSettings()
        settings.maxPixel = maxPixel
        let runner = BenchmarkRunner(
            plan: plan,
            source: .embedded(fixture: .article, bandwidthBytesPerSecond: nil),
            settings: settings,
            launcher: ChildProcessLauncher(executable: BenchProcess.executable)
        )
        return try runner.run()
    }

    static let fullBitmap = Double(ArticleReference.bitmapBytes)

    @Test func everyRunSucceeded() throws {
        #expect(try Self.results.count == 16)
        for row in try Self.results where !row.isSuccess {
            Issue.record("\(row.cell) run \(row.run): \(row.status.rawValue) \(row.error)")
        }
    }

    @Test func thumbnailIsTheQuarterScale() throws {
        for row in try Self.results where row.render == .thumbnail && row.isSuccess {
            #expect(row.imageWidth == 1500 && row.imageHeight == 1000, "\(row.cell)")
        }
    }

    @Test func thumbnailHeapPeakStaysUnderAQuarterOfTheFullBitmap() throws {
        for row in try Self.results where row.render == .thumbnail && row.isSuccess {
            let heap = try #require(row.peakAllocatedDeltaBytes)
            #expect(Double(heap) < Self.fullBitmap / 4, "\(row.cell) run \(row.run): heap peak \(heap) B")
        }
    }

    @Test func theFullRenderControlDoesAllocateTheBitmap() throws {
        for row in try Self.results where row.render == .full && row.isSuccess {
            let heap = try #require(row.peakAllocatedDeltaBytes)
            #expect(Double(heap) >= Self.fullBitmap, "\(row.cell) run \(row.run): heap peak \(heap) B")
        }
    }

    @Test func fileIsDecodedWithoutReadingItIntoMemory() throws {
        // Bitmap (6 MB) plus libjpeg's buffers, but not the 13.1 MB body as well.
        for row in try Self.results where row.render == .thumbnail && row.isSuccess {
            let heap = try #require(row.peakAllocatedDeltaBytes)
            let payload = try #require(row.payloadBytes)
            #expect(heap < payload, "\(row.cell) run \(row.run): heap peak \(heap) B, payload \(payload) B")
        }
    }

    @Test func maxPixelPicksTheSmallestScaleThatIsLargeEnough() throws {
        // 3000 px: 4/8 of 6000 is the first scale whose long side reaches it.
        let rows = try Self.run(
            BenchmarkPlan(
                strategies: ["curl-memory"],
                renders: [.thumbnail],
                allocators: [.system],
                runs: 1
            ),
            maxPixel: 3000
        )
        let row = try #require(rows.first)
        #expect(row.isSuccess, "\(row.error)")
        #expect(row.imageWidth == 3000 && row.imageHeight == 2000)
    }
}
