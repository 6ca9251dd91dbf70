import BenchCore
import Foundation
import Imaging
import LoopbackServer
import Probe

/// The parent: prepares the image and the server, then runs every trial of the plan
/// through a launcher, one fresh child at a time, or `jobs` at a time (`ParallelTrials`).
package final class BenchmarkRunner {
    package let plan: BenchmarkPlan
    package let source: ImageSource
    package let settings: TrialSettings
    package let launcher: TrialLauncher
    /// Children at once; trials of `serialOnlyStrategies` and throttled runs still run alone.
    package let jobs: Int

    package init(
        plan: BenchmarkPlan,
        source: ImageSource,
        settings: TrialSettings = .init(),
        launcher: TrialLauncher = ChildProcessLauncher(),
        jobs: Int = 1
    ) {
        self.plan = plan
        self.source = source
        self.settings = settings
        self.launcher = launcher
        self.jobs = max(1, jobs)
    }

    /// Runs the plan. `onResult` gets every row as it arrives, with all rows so far (so they can
    /// be written at once) and the number of trials planned, on this thread in finishing order;
    /// `shouldStop` is asked between trials and after each (Ctrl-C, SIGTERM:
    /// a trial whose child was killed by the interruption is dropped, not recorded as a failure).
    /// Throws only when the harness cannot start (fixture or server); failed trials are rows.
    /// `schedule`: the trials to run (default: the plan's whole schedule); a resumed run (or a
    /// shard) gives a filtered `plan.schedule()`.
    package func run(
        _ schedule: [(cell: TrialCell, run: Int)]? = nil,
        onResult: (_ latest: TrialResult, _ all: [TrialResult], _ planned: Int) -> Void = { _, _, _ in },
        shouldStop: @escaping @Sendable () -> Bool = { false }
    ) throws -> [TrialResult] {
        let schedule = schedule ?? plan.schedule()
        guard !schedule.isEmpty else { return [] }
        let target = try prepareTarget()
        defer { target.server?.shutdown() }

        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("bench-\(getpid())-\(UUID().uuidString.prefix(8))")
        // A second signal removes it too, should this thread not get to its defer in time.
        Interruption.registerScratch(scratch)
        defer {
            try? FileManager.default.removeItem(at: scratch)
            Interruption.unregisterScratch(scratch)
        }

        let specs = schedule.enumerated().map { index, item in
            var spec = settings.spec(
                for: item.cell,
                run: item.run,
                url: target.url,
                warmupURL: target.warmupURL,
                workDirectory: scratch.appendingPathComponent("trial-\(index + 1)")
            )
            spec.warmUpImage = target.warmUpImage
            return spec
        }
        let launcher = self.launcher
        let throttled = source.isThrottled
        var results: [TrialResult] = []
        ParallelTrials.run(
            specs,
            jobs: jobs,
            exclusive: { throttled || BenchmarkRunner.serialOnlyStrategies.contains($0.strategy) },
            shouldStop: shouldStop,
            launch: { _, spec in launcher.launch(spec) },
            onResult: { _, result in
                results.append(result)
                onResult(result, results, schedule.count)
            }
        )
        return results
    }

    /// Strategies whose peak depends on what else runs: `data-stream`'s chunks queue up on a
    /// delegate queue with no backpressure, so its peak is a race between the network and that
    /// queue; the calibration strategies check the sampler, whose rate is CPU time. They run alone.
    package static let serialOnlyStrategies: Set<String> = ["data-stream", "calibration-spike", "calibration-realloc"]

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
            let path = BenchmarkRunner.fixturePath(fixture.encoding)
            server.addResource(path: path, body: body, contentType: fixture.encoding.mimeType)
            try server.start()
            let warmUpImage =
                fixture.encoding.format == .jpeg
                ? nil
                : try FixtureGenerator.cachedFixture(
                    FixtureSpec(width: 64, height: 48, quality: fixture.quality, encoding: fixture.encoding),
                    in: settings.fixtureCacheDirectory
                )
            return Target(
                url: server.url(for: path),
                warmupURL: warmUp ? server.url(for: "/warmup") : nil,
                server: server,
                warmUpImage: warmUpImage
            )
        }
    }

    /// Where the embedded server serves the fixture: its name's extension follows the encoding, as
    /// `bench serve`'s does (a PNG at /fixture.jpg would mislead a client that goes by the name).
    package static func fixturePath(_ encoding: FixtureEncoding) -> String { "/fixture.\(encoding.fileExtension)" }
}
