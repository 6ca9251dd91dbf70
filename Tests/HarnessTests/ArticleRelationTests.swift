import Foundation
import Testing
import Harness
import Imaging
import Probe
import Report

/// The article's claims as robust relations, measured for real: children spawned from the
/// `bench` binary, fetching the 6000x4000 fixture from the loopback server, under both allocators.
@Suite(.serialized) struct ArticleRelationTests {
    static let results: [TrialResult] = {
        let plan = BenchmarkPlan(strategies: ["data", "download"], renders: [.none, .full],
                                 allocators: Allocator.allCases, runs: 3)
        let runner = BenchmarkRunner(plan: plan, source: .embedded(fixture: .article, bandwidthBytesPerSecond: nil),
                                     launcher: ChildProcessLauncher(executable: BenchProcess.executable))
        return (try? runner.run()) ?? []
    }()

    static func median(_ strategy: String, _ render: RenderMode, _ allocator: Allocator) -> Double {
        let deltas = results.filter { $0.strategy == strategy && $0.render == render && $0.allocator == allocator }
            .compactMap(\.peakRSSDeltaBytes)
        return Distribution(deltas)?.median ?? .nan
    }

    static var payload: Double { Double(results.compactMap(\.payloadBytes).max() ?? 0) }

    @Test func everyRunSucceededInItsOwnProcess() {
        #expect(Self.results.count == 24)
        for row in Self.results where !row.isSuccess {
            Issue.record("\(row.cell) run \(row.run): \(row.status.rawValue) \(row.error)")
        }
        #expect(Set(Self.results.map(\.pid)).count == Self.results.count, "every row must have a distinct pid")
        #expect(!Self.results.map(\.pid).contains(getpid()))
    }

    @Test func payloadIsTheArticlesImage() {
        #expect(abs(Self.payload - 13_100_000) <= 13_100_000 * 0.05)
    }

    @Test(arguments: Allocator.allCases)
    func dataTaskHoldsMostOfThePayloadMoreThanDownloadTask(allocator: Allocator) {
        let data = Self.median("data", .none, allocator)
        let download = Self.median("download", .none, allocator)
        #expect(data - download >= 0.6 * Self.payload,
                "data \(data) vs download \(download), payload \(Self.payload)")
    }

    @Test(arguments: Allocator.allCases)
    func fullRenderHoldsTheBitmapAndDataAlsoThePayload(allocator: Allocator) {
        let bitmap = Double(ArticleReference.bitmapBytes)
        #expect(Self.median("download", .full, allocator) >= bitmap)
        #expect(Self.median("data", .full, allocator) >= bitmap + Self.payload)
    }

    @Test func fullRenderDecodedTheWholeImage() {
        for row in Self.results where row.render == .full && row.isSuccess {
            #expect(row.imageWidth == 6000 && row.imageHeight == 4000)
        }
    }

    @Test func samplerCoveredTheWindow() {
        for row in Self.results where row.isSuccess {
            #expect((row.samples ?? 0) > 0)
            #expect(!row.timeline.isEmpty)
            #expect((row.peakRSSBytes ?? 0) >= (row.hwmPeakRSSBytes ?? 0))
        }
    }
}
