import Foundation
import Imaging
import LoopbackServer
import Probe

/// The parent: prepares the image and the server, then runs every trial of the plan
/// through a launcher, one fresh child at a time.
public final class BenchmarkRunner {
    public let plan: BenchmarkPlan
    public let source: ImageSource
    public let settings: TrialSettings
    public let launcher: TrialLauncher

    public init(plan: BenchmarkPlan, source: ImageSource, settings: TrialSettings = .init(),
                launcher: TrialLauncher = ChildProcessLauncher()) {
        self.plan = plan
        self.source = source
        self.settings = settings
        self.launcher = launcher
    }

    /// Runs the plan. `onResult` gets every row as it arrives, with all rows so far (so they can
    /// be written at once) and the number of trials planned; `shouldStop` is asked between trials and after each (Ctrl-C, SIGTERM:
    /// a trial whose child was killed by the interruption is dropped, not recorded as a failure).
    /// Throws only when the harness cannot start (fixture or server); failed trials are rows.
    public func run(onResult: (_ latest: TrialResult, _ all: [TrialResult], _ planned: Int) -> Void = { _, _, _ in },
                    shouldStop: () -> Bool = { false }) throws -> [TrialResult] {
        let target = try prepareTarget()
        defer { target.server?.shutdown() }

        let schedule = plan.schedule()
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("bench-\(getpid())-\(UUID().uuidString.prefix(8))")
        // A second signal removes it too, should this thread not get to its defer in time.
        Interruption.registerScratch(scratch)
        defer {
            try? FileManager.default.removeItem(at: scratch)
            Interruption.unregisterScratch(scratch)
        }

        var results: [TrialResult] = []
        for (index, item) in schedule.enumerated() {
            if shouldStop() { break }
            var spec = TrialSpec(
                strategy: item.cell.strategy, render: item.cell.render, allocator: item.cell.allocator,
                run: item.run, url: target.url, warmupURL: target.warmupURL,
                workDirectory: scratch.appendingPathComponent("trial-\(index + 1)"),
                maxPixel: settings.maxPixel, sampleIntervalNanos: settings.sampleIntervalNanos,
                timeoutSeconds: settings.timeoutSeconds)
            spec.maxImagePixels = settings.maxImagePixels
            spec.warmUpImage = target.warmUpImage
            let result = launcher.launch(spec)
            // A child killed because the run was interrupted is not a measurement: no row.
            if shouldStop() && !result.isSuccess { break }
            results.append(result)
            onResult(result, results, schedule.count)
        }
        return results
    }

    struct Target {
        var url: URL
        var warmupURL: URL?
        var server: LoopbackServer?
        /// A tiny image in the fixture's encoding that the child decodes while warming up, so a
        /// format's first-use costs (code pages, codec set-up) are not measured; nil for JPEG.
        var warmUpImage: URL?
    }

    /// The URL to measure, starting the embedded server with the fixture when needed.
    func prepareTarget() throws -> Target {
        switch source {
        case .external(let url, let warmupURL):
            return Target(url: url, warmupURL: warmupURL, server: nil)
        case .embedded(let fixture, let bandwidth, let warmUp):
            let file = try FixtureGenerator.cachedFixture(fixture, in: settings.fixtureCacheDirectory)
            let body = try Data(contentsOf: file)
            var configuration = LoopbackServer.Configuration()
            configuration.bandwidthBytesPerSecond = bandwidth
            let server = LoopbackServer(configuration: configuration)
            server.addResource(path: BenchmarkRunner.fixturePath, body: body, contentType: fixture.encoding.mimeType)
            try server.start()
            let warmUpImage = fixture.encoding.format == .jpeg ? nil
                : try FixtureGenerator.cachedFixture(FixtureSpec(width: 64, height: 48, quality: fixture.quality, encoding: fixture.encoding),
                                                     in: settings.fixtureCacheDirectory)
            return Target(url: server.url(for: BenchmarkRunner.fixturePath),
                          warmupURL: warmUp ? server.url(for: "/warmup") : nil, server: server, warmUpImage: warmUpImage)
        }
    }

    public static let fixturePath = "/fixture.jpg"
}
