import BenchCore
import Foundation
import Harness
import ImageServer
import Imaging
import LoopbackServer
import Strategies
import Synchronization

/// The parent side of `bench scenario image-server`, one cell and run: serves the fixture from a
/// loopback origin, starts the measured server in a child (`ServerSpec`), warms it up with one
/// round of `concurrency` requests, opens its window, keeps `concurrency` requests in flight until
/// `requests` have been answered (`LoadGenerator`), then ends the child with SIGINT for its report.
/// On `route` post every request (the warm-up's too) uploads the fixture; the origin is still served.
package struct ImageServerScenario {
    package struct Settings: Sendable {
        /// `ImageRoute.noStrategy` for a POST cell: it fetches nothing.
        package var strategy: String
        package var render: RenderMode
        package var route = ImageRoute.get
        package var allocator: Allocator = .system
        package var concurrency: Int
        /// nil: a thread per request.
        package var renderThreads: Int?
        package var requests: Int
        package var fixture: FixtureSpec
        package var fixtureCacheDirectory: URL
        package var maxPixel = 1024
        package var timeoutSeconds = 300.0
        /// When set, the load asks `/calibration/BYTES` instead of the image: each request holds a
        /// known block, the known answer for the memory per request in flight.
        package var calibrationBlockBytes: Int?
        /// Whether the URLSession strategies may open C connections to the origin at once (the
        /// default), or only as many as shipped (`--client-cap default`: 6 on Linux).
        package var clientCapRaised = true
        /// `--images DIR`: the origin serves the folder's images and request i asks for image
        /// i mod n (the warm-up too); nil: the fixture, as `fixture.jpg`.
        package var imagesFolder: URL?
        /// `--memory-limit`: RLIMIT_DATA the parent sets on the server child as soon as it is started.
        package var memoryLimitBytes: Int?
        /// `--residency off`: the server takes no residency snapshots (to measure what they cost).
        package var residencyOff = false
        /// `--memory-budget`, `--workers`, `--queue`: what the server admits at once (`AdmissionGate`).
        package var memoryBudgetBytes: Int?
        package var workers: Int?
        package var queueLimit: Int?
        /// `--max-image-pixels`: larger images are refused (413 before their body is held, with a budget).
        package var maxImagePixels = DecodeBudget.defaultMaxImagePixels
        package var admission: AdmissionSettings {
            AdmissionSettings(budgetBytes: memoryBudgetBytes, workers: workers, queueLimit: queueLimit)
        }

        package init(
            strategy: String,
            render: RenderMode,
            concurrency: Int,
            renderThreads: Int?,
            requests: Int,
            fixture: FixtureSpec,
            fixtureCacheDirectory: URL
        ) {
            self.strategy = strategy
            self.render = render
            self.concurrency = concurrency
            self.renderThreads = renderThreads
            self.requests = requests
            self.fixture = fixture
            self.fixtureCacheDirectory = fixtureCacheDirectory
        }
    }

    /// The fixture's name at the origin: `GET /image/fixture.jpg`.
    package static let fixtureName = "fixture.jpg"
    /// How long the parent waits for the child to listen.
    static let startSeconds = 60.0

    package var settings: Settings
    package var launcher: ChildProcessLauncher

    package init(settings: Settings, launcher: ChildProcessLauncher = ChildProcessLauncher()) {
        self.settings = settings
        self.launcher = launcher
    }

    package func run(run: Int, workDirectory: URL, stop: @escaping @Sendable () -> Bool) throws -> ServerResult {
        let settings = self.settings
        let images = try servedImages()
        return try serve(run: run, workDirectory: workDirectory, images: images, listeningOn: nil) { pid in
            Self.drive(settings, images: images, workDirectory: workDirectory, pid: pid, stop: stop)
        }
    }

    /// The origin's images: the folder's, or the fixture as `fixture.jpg`.
    package func servedImages() throws -> [ServedImage] {
        if let folder = settings.imagesFolder { return try ServedImages.load(folder: folder) }
        let body = try Data(
            contentsOf: FixtureGenerator.cachedFixture(settings.fixture, in: settings.fixtureCacheDirectory)
        )
        return [ServedImage(name: Self.fixtureName, body: body)]
    }

    /// One server child: the origin, the spec, the child driven by `drive` (on its own thread), the row.
    /// `listeningOn`: a port for load from outside; nil: the parent's load, on a free port. `drive`
    /// is given the child's pid.
    private func serve(
        run: Int,
        workDirectory: URL,
        images: [ServedImage],
        listeningOn port: Int?,
        drive: @escaping @Sendable (pid_t) -> (records: [RequestRecord], seconds: Double, error: String?)
    ) throws -> ServerResult {
        let origin = LoopbackServer()
        for image in images {
            let type = image.info.map { "image/\($0.format.rawValue)" } ?? "application/octet-stream"
            origin.addResource(path: "/" + image.name, body: image.body, contentType: type)
        }
        try origin.start()
        defer { origin.shutdown() }
        defer { try? FileManager.default.removeItem(at: workDirectory) }

        var spec = ServerSpec(
            strategy: settings.strategy,
            render: settings.render,
            originURL: origin.url(for: "/"),
            fetchThreads: settings.concurrency,
            renderThreads: settings.renderThreads,
            workDirectory: workDirectory
        )
        spec.allocator = settings.allocator
        if case .post(let upload) = settings.route { spec.upload = upload }
        spec.maxPixel = settings.maxPixel
        spec.clientCap = settings.clientCapRaised ? settings.concurrency : nil
        spec.timeoutSeconds = settings.timeoutSeconds
        spec.residencyOff = settings.residencyOff
        spec.memoryBudgetBytes = settings.memoryBudgetBytes
        spec.workers = settings.workers
        spec.queueLimit = settings.queueLimit
        spec.maxImagePixels = settings.maxImagePixels
        if let port {
            (spec.port, spec.listening) = (port, true)
            // A listening window may last an hour: its samples (32 bytes each, a buffer that grows into
            // RSS) every 10 ms, not every 1 ms, keep that growth near 12 MB an hour.
            spec.sampleIntervalNanos = 10_000_000
        }

        var result = ServerResult(
            settings,
            run: run,
            fixture: settings.imagesFolder.map { "\($0.lastPathComponent)/ (\(images.count) images)" }
                ?? "\(settings.fixture.width)x\(settings.fixture.height)"
        )
        result.loadFromOutside = port != nil
        result.imageNames = images.map(\.name)
        let load = Mutex<(records: [RequestRecord], seconds: Double, error: String?)>(([], 0, nil))
        let limit = settings.memoryLimitBytes
        let outcome = launcher.run(spec, reporting: ServerReport.self) { pid in
            if let limit, let error = Self.limitMemory(of: pid, to: limit) {
                load.withLock { $0 = ([], 0, error) }
                return
            }
            let driven = drive(pid)
            load.withLock { $0 = driven }
        }
        let driven = load.withLock { $0 }
        (result.requests, result.loadSeconds) = (driven.records, driven.seconds)
        switch outcome {
        case .reported(var report, _):
            // Named here, in the parent, with the work folder as the namer's scratch: it goes with the run.
            // Every request's body is freed when its answer goes, inside the window: in a server, freed in
            // the window does not make a block a staging buffer (as it does a trial's), its frames say.
            if let blocks = report.peakBlocks?.map({ block in
                var held = block
                held.freedSeconds = nil
                return held
            }) {
                let roles = HolderRoles.rules(forStrategy: settings.strategy)
                result.holders = PeakHolderNaming.shared.holders(of: blocks, scratch: workDirectory, roles: roles)
                report.peakBlocks = nil
            }
            result.report = report
            (result.status, result.error) = (report.status, report.error)
        case .failed(let status, let error, let pid):
            (result.status, result.error, result.report.pid) = (status, error, pid)
        }
        // The parent's reason first: a child whose window never opened says only that; a child that
        // crashed or timed out says why after it.
        if let error = driven.error {
            let child: String
            if case .failed = outcome {
                child = "; the server child: \(result.status.rawValue): \(result.error)"
            } else {
                child = ""
            }
            (result.status, result.error) = (.harnessError, error + child)
        }
        result.floorBytes = floor(result, images: images)
        return result
    }

    /// The server alone, for load from outside (`--listen port`): it listens on `port` (0: a free one),
    /// measures from its first moment, and ends with the run's SIGINT (or when `stop` says so); the
    /// parent says where it listens, flushed at once, through `announce`.
    package func listen(
        port: Int,
        workDirectory: URL,
        announce: @escaping @Sendable (String) -> Void,
        stop: @escaping @Sendable () -> Bool
    ) throws -> ServerResult {
        let images = try servedImages()
        let route = settings.route == .get ? "GET /image/\(images[0].name)" : "POST /image"
        return try serve(run: 1, workDirectory: workDirectory, images: images, listeningOn: port) { pid in
            guard let port = Self.waitForPort(workDirectory: workDirectory, pid: pid, stop: stop) else {
                return ([], 0, "the server did not listen within \(Int(Self.startSeconds)) s")
            }
            announce(
                "listening on http://127.0.0.1:\(port) (\(route); SIGINT ends the measurement)"
            )
            while !stop() && !ChildProcess.hasEnded(pid) { usleep(50_000) }
            return ([], 0, nil)
        }
    }

    /// The parent's side while the child runs: its port, the warm-up, the window, the load.
    private static func drive(
        _ settings: Settings,
        images: [ServedImage],
        workDirectory: URL,
        pid: pid_t,
        stop: @escaping @Sendable () -> Bool
    ) -> (records: [RequestRecord], seconds: Double, error: String?) {
        guard let port = waitForPort(workDirectory: workDirectory, pid: pid, stop: stop) else {
            return ([], 0, "the server did not listen within \(Int(startSeconds)) s")
        }
        let base = "http://127.0.0.1:\(port)"
        // The calibration route is a GET whatever the cell's route.
        let uploading = settings.route != .get && settings.calibrationBlockBytes == nil
        let urls = images.map { image in
            let imagePath = uploading ? "/image" : "/image/\(image.name)"
            return URL(
                string: base + (settings.calibrationBlockBytes.map(ServerControl.calibrationPath(bytes:)) ?? imagePath)
            )!
        }
        let url: @Sendable (Int) -> URL = { urls[$0 % urls.count] }
        // Request i uploads image i mod n, as a GET asks for it.
        let bodies = images.map(\.body)
        let upload: (@Sendable (Int) -> Data)? = uploading ? { @Sendable in bodies[$0 % bodies.count] } : nil
        let warmup = LoadGenerator.run(
            count: settings.concurrency,
            concurrency: settings.concurrency,
            url: url,
            posting: upload,
            stop: stop
        )
        // A gated server may refuse part of the warm-up (503: its queue is full): that is its answer,
        // as long as some request was served.
        let refused = settings.admission.gated ? [200, 503] : [200]
        if let failed = warmup.records.first(where: { !refused.contains($0.status) })
            ?? (warmup.records.contains { $0.status == 200 } ? nil : warmup.records.first)
        {
            return ([], 0, "the warm-up request failed: status \(failed.status) \(failed.error)")
        }
        let control = LoadGenerator.send(
            index: 0,
            url: URL(string: base + ServerControl.windowPath)!,
            with: CurlMemoryStrategy(workDirectory: workDirectory)
        )
        guard control.status == 204 else {
            return ([], 0, "the server's window did not open: status \(control.status) \(control.error)")
        }
        let load = LoadGenerator.run(
            count: settings.requests,
            concurrency: settings.concurrency,
            url: url,
            posting: upload,
            stop: stop
        )
        return (load.records, load.seconds, nil)
    }

    /// RLIMIT_DATA on the child (prlimit(2)): over it an allocation fails, a request is answered 422
    /// or the server dies, and the row says which. nil when set; else why not.
    static func limitMemory(of pid: pid_t, to bytes: Int) -> String? {
        let error = ChildProcess.limitData(of: pid, to: bytes)
        return error == 0
            ? nil : "cannot set --memory-limit \(bytes) bytes on the server: \(String(cString: strerror(error)))"
    }

    private static func waitForPort(workDirectory: URL, pid: pid_t, stop: () -> Bool) -> Int? {
        let deadline = Date().addingTimeInterval(startSeconds)
        while Date() < deadline && !stop() && !ChildProcess.hasEnded(pid) {
            if let port = ServerControl.port(in: workDirectory) { return port }
            usleep(5_000)
        }
        return nil
    }

    /// The floor at the peak; with several images, the mean of each image's (the requests at the
    /// peak are a mix the load cycled through, each image as often).
    private func floor(_ result: ServerResult, images: [ServedImage]) -> Int? {
        guard let fetch = Self.fetchFloor(settings),
            let renderer = RendererCatalog.renderer(named: settings.render.rawValue)
        else { return nil }
        let answers = result.requests.filter { $0.status == 200 }.map(\.bytes).sorted()
        var total = 0
        for image in images {
            guard
                let bytes = ServerFloor.bytes(
                    stages: result.report.stagesAtHeapPeak,
                    fetch: fetch,
                    render: renderer.floor,
                    payloadBytes: image.body.count,
                    imageWidth: image.info?.width,
                    imageHeight: image.info?.height,
                    maxPixel: settings.maxPixel,
                    answerBytes: answers.isEmpty ? 0 : answers[answers.count / 2]
                )
            else { return nil }
            total += bytes
        }
        return images.isEmpty ? nil : total / images.count
    }

    /// What a request holds while it gets its image: the strategy's fetch floor; for an upload, the
    /// body in memory (collect, as a data task's body) or a bounded streaming buffer (file, as a
    /// download's: each chunk is written before the next is read).
    static func fetchFloor(_ settings: Settings) -> FetchFloor? {
        switch settings.route {
        case .get: StrategyCatalog.strategy(named: settings.strategy)?.floor
        case .post(.collect): .bodyInMemory
        case .post(.file): .streamingBuffer(bytes: FetchFloor.fileStreamingBufferBytes)
        }
    }
}

extension ServerResult {
    /// A run of the cell `settings` names, before anything is measured.
    package init(_ settings: ImageServerScenario.Settings, run: Int, fixture: String) {
        self.init(
            strategy: settings.strategy,
            render: settings.render,
            allocator: settings.allocator,
            concurrency: settings.concurrency,
            renderThreads: settings.renderThreads,
            run: run,
            fixture: fixture
        )
        route = settings.route
        admission = settings.admission
    }
}
