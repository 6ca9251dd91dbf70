import BenchCore
import Foundation
import Harness
import Imaging
import Probe
import Report
import TestSupport
import Testing

/// The article's claims as robust relations, measured for real: children spawned from the
/// `bench` binary, fetching the 6000x4000 fixture from the loopback server, under both allocators.
@Suite(.serialized) struct ArticleRelationTests {
    /// The harness's own failure (server or fixture) is kept, not hidden: every test rethrows it.
    static let measured = Result {
        let plan = BenchmarkPlan(
            strategies: ["data", "download"],
            renders: [.none, .full],
            allocators: Allocator.allCases,
            runs: 3
        )
        let runner = BenchmarkRunner(
            plan: plan,
            source: .embedded(fixture: .article, bandwidthBytesPerSecond: nil),
            launcher: ChildProcessLauncher(executable: BenchProcess.executable)
        )
        return try runner.run()
    }
    static var results: [TrialResult] { get throws { try measured.get() } }

    static func median(_ strategy: String, _ render: RenderMode, _ allocator: Allocator) throws -> Double {
        let deltas = try results.filter { $0.strategy == strategy && $0.render == render && $0.allocator == allocator }
            .compactMap(\.peakRSSDeltaBytes)
        return try #require(
            Distribution(deltas),
            "no successful \(strategy)+\(render.rawValue) [\(allocator.rawValue)] run"
        ).median
    }

    static var payload: Double { get throws { Double(try results.compactMap(\.payloadBytes).max() ?? 0) } }

    @Test func everyRunSucceededInItsOwnProcess() throws {
        let results = try Self.results
        #expect(results.count == 24)
        for row in results where !row.isSuccess {
            Issue.record("\(row.cell) run \(row.run): \(row.status.rawValue) \(row.error)")
        }
        #expect(Set(results.map(\.pid)).count == results.count, "every row must have a distinct pid")
        #expect(!results.map(\.pid).contains(getpid()))
    }

    @Test func payloadIsTheArticlesImage() throws {
        #expect(abs(try Self.payload - 13_100_000) <= 13_100_000 * 0.05)
    }

    /// Two copies of the body (FoundationNetworking's buffer and the `Data` handed over): at least most
    /// of one payload more than the download task, and less than three (glibc holds 2.0 payloads,
    /// jemalloc 2.5: a third copy, as BENCH_INJECT_REGRESSION=extra-copy keeps, fails this).
    @Test(arguments: Allocator.allCases)
    func dataTaskHoldsTwoCopiesOfThePayloadMoreThanDownloadTask(allocator: Allocator) throws {
        let data = try Self.median("data", .none, allocator)
        let download = try Self.median("download", .none, allocator)
        let payload = try Self.payload
        let held = data - download
        #expect(held >= 0.6 * payload, "data \(data) vs download \(download), payload \(payload)")
        #expect(
            held <= 2.8 * payload,
            "data \(data) vs download \(download): more than two copies of a \(payload)-byte payload"
        )
    }

    /// A render adds one bitmap: the download task holds the bitmap and a few allocator pages more; the
    /// data task the bitmap and about one payload (its `Data`), not two (glibc 1.0, jemalloc 1.6 payloads).
    @Test(arguments: Allocator.allCases)
    func fullRenderHoldsTheBitmapAndDataAlsoThePayload(allocator: Allocator) throws {
        let bitmap = Double(ArticleReference.bitmapBytes)
        let payload = try Self.payload
        let download = try Self.median("download", .full, allocator)
        let data = try Self.median("data", .full, allocator)
        #expect(
            download >= bitmap && download <= bitmap + 0.25 * payload,
            "download+full \(download), bitmap \(bitmap)"
        )
        #expect(
            data >= bitmap + payload && data <= bitmap + 1.8 * payload,
            "data+full \(data), bitmap \(bitmap), payload \(payload)"
        )
    }

    @Test func fullRenderDecodedTheWholeImage() throws {
        for row in try Self.results where row.render == .full && row.isSuccess {
            #expect(row.imageWidth == 6000 && row.imageHeight == 4000)
        }
    }

    @Test func samplerCoveredTheWindow() throws {
        for row in try Self.results where row.isSuccess {
            #expect((row.samples ?? 0) > 0)
            #expect(!row.timeline.isEmpty)
            #expect((row.peakRSSBytes ?? 0) >= (row.hwmPeakRSSBytes ?? 0))
        }
    }
}
