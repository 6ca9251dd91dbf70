import BenchCore
import Foundation
import Harness
import Imaging
import LoopbackServer
import Synchronization

/// One measured run of a corpus image, or the one row of an image that was not measured.
package struct CorpusRow: Sendable {
    package var image: CorpusImage
    package var result: TrialResult?

    package init(image: CorpusImage, result: TrialResult?) {
        self.image = image
        self.result = result
    }

    package var isSuccess: Bool { result?.isSuccess ?? false }
}

/// Measures every image of a corpus with the plan's cells, each run in a fresh child: files through
/// the embedded loopback server (each one held in memory only while its runs are in progress),
/// URLs directly. Images go one after another; their runs interleave (run 1 of every cell, then run 2).
package final class CorpusRunner {
    package let images: [CorpusImage]
    package let plan: BenchmarkPlan
    package let settings: TrialSettings
    package let launcher: TrialLauncher
    package let jobs: Int

    /// Every image is fetched from loopback (the embedded server, or a loopback URL list): children
    /// refuse any other connection, so a redirect off loopback goes nowhere.
    package init(
        images: [CorpusImage],
        plan: BenchmarkPlan,
        settings: TrialSettings,
        launcher: TrialLauncher = ChildProcessLauncher(loopbackOnly: true),
        jobs: Int = 1
    ) {
        self.images = images
        self.plan = plan
        self.settings = settings
        self.launcher = launcher
        self.jobs = max(1, jobs)
    }

    package struct Item: Sendable, Hashable {
        package var image: Int
        package var cell: TrialCell
        package var run: Int
    }

    /// Every run of every measured image, image by image: the planned items. A resumed run (or a
    /// shard) measures a subset: filter this and give it to `run`.
    package var schedule: [Item] {
        let runs = plan.schedule()
        return images.indices.filter { images[$0].isMeasured }.flatMap { image in
            runs.map { Item(image: image, cell: $0.cell, run: $0.run) }
        }
    }

    /// The images that are one row each and no run (not images, unreadable).
    package var unmeasured: [CorpusImage] { images.filter { !$0.isMeasured } }

    /// Measures `items` (default: the whole schedule), after the rows of `unmeasured` images
    /// (default: every one). `onRow` gets each row as it finishes, on this thread, to be appended
    /// at once. Returns the rows in finishing order. Throws only when the server cannot start.
    package func run(
        _ items: [Item]? = nil,
        unmeasured: [CorpusImage]? = nil,
        onRow: (_ row: CorpusRow) -> Void,
        shouldStop: @escaping @Sendable () -> Bool
    ) throws -> [CorpusRow] {
        var rows: [CorpusRow] = []
        let schedule = items ?? self.schedule
        for image in unmeasured ?? self.unmeasured {
            rows.append(CorpusRow(image: image, result: nil))
            onRow(rows[rows.count - 1])
        }
        guard !schedule.isEmpty else { return rows }

        let server = LoopbackServer()
        try server.start()
        defer { server.shutdown() }
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("bench-corpus-\(getpid())-\(UUID().uuidString.prefix(8))")
        Interruption.registerScratch(scratch)
        defer {
            try? FileManager.default.removeItem(at: scratch)
            Interruption.unregisterScratch(scratch)
        }

        let served = ServedImages(
            server: server,
            images: images,
            schedule: schedule,
            fixtureCache: settings.fixtureCacheDirectory
        )
        let (images, settings, launcher) = (self.images, self.settings, self.launcher)
        let warmup = server.url(for: "/warmup")
        ParallelTrials.run(
            schedule,
            jobs: jobs,
            exclusive: { BenchmarkRunner.serialOnlyStrategies.contains($0.cell.strategy) },
            shouldStop: shouldStop,
            launch: { index, item in
                var spec = settings.spec(
                    for: item.cell,
                    run: item.run,
                    url: warmup,
                    warmupURL: nil,
                    workDirectory: scratch.appendingPathComponent("trial-\(index + 1)")
                )
                defer { served.finished(item.image) }
                switch served.acquire(item.image) {
                case .success(let target):
                    spec.url = target.url
                    spec.warmupURL = target.warmupURL ?? warmup
                    spec.warmUpImage = target.warmUpImage
                    return launcher.launch(spec)
                case .failure(let problem):
                    var failed = TrialResult(spec: spec, pid: 0)
                    failed.status = problem.status
                    failed.error = problem.description
                    return failed
                }
            },
            onResult: { index, result in
                rows.append(CorpusRow(image: images[schedule[index].image], result: result))
                onRow(rows[rows.count - 1])
            }
        )
        return rows
    }
}

/// The corpus files the server holds: an image's bytes are loaded when its first run starts and
/// dropped when its last run ends, so the parent holds about `jobs` images, not the whole corpus.
final class ServedImages: Sendable {
    struct Target {
        var url: URL
        /// nil: the embedded server's /warmup.
        var warmupURL: URL?
        /// A tiny image of the same format, decoded during warm-up (nil: a tiny JPEG).
        var warmUpImage: URL?
    }

    private struct State {
        var runsLeft: [Int: Int]
        var loaded: [Int: Result<Target, ServeProblem>] = [:]
    }

    struct ServeProblem: Error, CustomStringConvertible {
        var description: String
        var status: TrialStatus = .harnessError
    }

    private let server: LoopbackServer
    private let images: [CorpusImage]
    private let state: Mutex<State>
    private let fixtureCache: URL

    init(server: LoopbackServer, images: [CorpusImage], schedule: [CorpusRunner.Item], fixtureCache: URL) {
        self.server = server
        self.images = images
        self.fixtureCache = fixtureCache
        state = Mutex(State(runsLeft: schedule.reduce(into: [:]) { $0[$1.image, default: 0] += 1 }))
    }

    static func path(of image: Int) -> String { "/corpus/\(image)" }

    /// The URL a child fetches for `image`, serving the file first if this is its first run.
    func acquire(_ image: Int) -> Result<Target, ServeProblem> {
        state.withLock { state in
            if let loaded = state.loaded[image] { return loaded }
            let target: Result<Target, ServeProblem>
            switch images[image].entry.location {
            case .url(let url):
                target = .success(Target(url: url, warmupURL: url.originRoot))
            case .file(let file):
                // Read under the lock: two workers must not load the same image twice.
                do {
                    let body = try file.contents()
                    let examined = images[image]
                    let digest = StableHash.digest(of: body)
                    if let inspected = examined.payloadDigest, inspected != digest {
                        // Its header's facts are another version's: measuring these bytes would pair them.
                        target = .failure(
                            ServeProblem(
                                description: "\(file.escaped) changed after it was inspected: "
                                    + "\(examined.fileBytes ?? 0) bytes (FNV-1a-64 \(inspected)) then, \(body.count) bytes "
                                    + "(FNV-1a-64 \(digest)) when served; not measured: run again (--resume measures it anew)",
                                status: .changed
                            )
                        )
                    } else {
                        server.addResource(path: Self.path(of: image), body: body)
                        target = .success(Target(url: server.url(for: Self.path(of: image)), warmupURL: nil))
                    }
                } catch {
                    target = .failure(ServeProblem(description: "cannot read \(file.escaped) to serve it: \(error)"))
                }
            case .unreadable(let reason):
                target = .failure(ServeProblem(description: reason))  // never scheduled: not measured
            }
            let warmUp = warmUpImage(for: images[image].format)
            state.loaded[image] = target.map {
                var target = $0
                target.warmUpImage = warmUp
                return target
            }
            return state.loaded[image]!
        }
    }

    /// A tiny fixture of `format` (a JPEG needs none: the child's default warm-up decodes one), so
    /// that the decoder's own set-up is done before the baseline, as `bench run` does.
    private func warmUpImage(for format: ImageFormat?) -> URL? {
        guard let format, format != .jpeg,
            let encoding = FixtureEncoding.allCases.first(where: { $0.format == format })
        else { return nil }
        return try? FixtureGenerator.cachedFixture(
            FixtureSpec(width: 64, height: 64, encoding: encoding),
            in: fixtureCache
        )
    }

    /// One run of `image` ended; after its last, the server lets the body go.
    func finished(_ image: Int) {
        let last = state.withLock { state -> Bool in
            state.runsLeft[image, default: 1] -= 1
            return state.runsLeft[image] == 0
        }
        if last { server.removeResource(path: Self.path(of: image)) }
    }
}
