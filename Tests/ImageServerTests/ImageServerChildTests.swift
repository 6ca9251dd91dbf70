import BenchCore
import Foundation
import Harness
import ImageServer
import Imaging
import LoopbackServer
import Scenarios
import Strategies
import Synchronization
import TestSupport
import Testing

/// The image server in a real `bench _server` child, against a real loopback origin, with real
/// libcurl load: small fixtures and C at most 4.
@Suite(.serialized) struct ImageServerChildTests {
    static let fixture = FixtureSpec(width: 1600, height: 1200, quality: 85, seed: 41)

    func settings(strategy: String, render: RenderMode, concurrency: Int, requests: Int) -> ImageServerScenario.Settings
    {
        var settings = ImageServerScenario.Settings(
            strategy: strategy,
            render: render,
            concurrency: concurrency,
            renderThreads: 2,
            requests: requests,
            fixture: Self.fixture,
            fixtureCacheDirectory: testFixtureCache("image-server")
        )
        settings.timeoutSeconds = 120
        return settings
    }

    /// One line per run in the test's log: what a failed relation was fitted from.
    static func describe(_ result: ServerResult) -> String {
        "C \(result.concurrency): heap delta \(result.peakHeapDeltaBytes ?? -1) B with \(result.report.stagesAtHeapPeak.inFlight) "
            + "in flight at the peak (most \(result.report.maxInFlight)), RSS delta \(result.peakRSSDeltaBytes ?? -1) B"
    }

    /// One run of the scenario in a real `bench _server` child.
    func serve(_ settings: ImageServerScenario.Settings, exactHeap: Bool = true) throws -> ServerResult {
        try ImageServerScenario(
            settings: settings,
            launcher: ChildProcessLauncher(executable: benchExecutable(), exactHeapPeak: exactHeap)
        ).run(run: 1, workDirectory: scratch()) { false }
    }

    func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "image-server-test-\(UUID().uuidString.prefix(8))"
        )
    }

    /// Under load the server answers every request, the in-flight gauge reaches the load's C, and
    /// the peak, floor and stages are measured.
    @Test func answersEveryRequestWithCInFlight() throws {
        let result = try serve(settings(strategy: "download", render: .stream, concurrency: 4, requests: 24))
        #expect(result.status == .ok, "\(result.error)")
        #expect(result.requests.count == 24)
        #expect(result.requestsOK == 24, "\(result.requests.filter { $0.status != 200 })")
        #expect(result.report.requestsAnswered == 24)
        #expect(result.report.maxInFlight == 4)
        #expect((1...4).contains(result.report.stagesAtHeapPeak.inFlight))
        // A 1024x768 answer's bitmap is 3.1 MB; four at once, with the decoders' rows, stay far under 64 MB.
        let heap = try #require(result.peakHeapDeltaBytes)
        #expect(heap > 1_000_000 && heap < 64_000_000, "\(heap)")
        #expect(try #require(result.floorBytes) > 0)
        #expect(try #require(result.throughput) > 0)
    }

    /// A request that holds a known block (8 MiB, every page written) adds that block per request in
    /// flight: the fitted slope is within 2% of it, and the fixed cost is small beside it.
    @Test func calibrationSlopeIsTheBlockPerRequest() throws {
        let block = 8 << 20
        var results: [ServerResult] = []
        for concurrency in [1, 2, 4] {
            var settings = settings(
                strategy: "curl-memory",
                render: .none,
                concurrency: concurrency,
                requests: 4 * concurrency
            )
            settings.calibrationBlockBytes = block
            settings.renderThreads = nil  // nothing renders: every run is on the one line
            let result = try serve(settings)
            #expect(result.status == .ok, "\(result.error)")
            #expect(result.requestsOK == 4 * concurrency)
            print(Self.describe(result))
            results.append(result)
        }
        let slope = try #require(ServerSlope.of(results).first)
        let heap = try #require(slope.heap)
        #expect(abs(heap.fit.slope / Double(block) - 1) < 0.02, "slope \(heap.fit.slope) for a block of \(block)")
        #expect(abs(heap.fit.intercept) < Double(block) / 4, "intercept \(heap.fit.intercept)")
    }

    /// Residency at the server's RSS peak: with 8 MiB blocks (every page written) held by C = 4
    /// requests at once, under jemalloc (which gives a block of 8 MiB back at its free, so RSS peaks
    /// while they are held), the RSS peak's snapshot finds them as heap holders: at least one whole
    /// block, at most C, and what no category explains stays under 4 MiB. With residency off, none.
    @Test func residencyAtTheRSSPeakFindsTheHeldBlocks() throws {
        let block = 8 << 20
        var settings = settings(strategy: "curl-memory", render: .none, concurrency: 4, requests: 16)
        settings.calibrationBlockBytes = block
        settings.allocator = .jemalloc
        settings.renderThreads = nil
        let result = try serve(settings)
        #expect(result.status == .ok, "\(result.error)")
        let atPeak = try #require(result.report.residency).filter { $0.moment == .rssPeak }
        func bytes(_ category: ResidencyCategory) -> Int { atPeak.first { $0.category == category }?.bytes ?? Int.min }
        let holders = bytes(.heapHolders)
        #expect(holders >= block && holders <= 4 * block + (1 << 20), "heap holders at the RSS peak: \(holders)")
        #expect(abs(bytes(.unattributed)) < 4 << 20, "unattributed: \(bytes(.unattributed))")
        let delta = atPeak.reduce(0) { $0 + $1.bytes }
        #expect(delta >= holders && delta <= (result.peakRSSDeltaBytes ?? 0), "the moment's RSS delta: \(delta)")
        #expect(result.report.holdersDropped == 0)

        settings.residencyOff = true
        settings.requests = 4
        let off = try serve(settings)
        #expect(off.status == .ok, "\(off.error)")
        #expect(off.report.residency == nil)
    }

    /// The image route answers a JPEG of the answer's size; `none` answers the fetched bytes; a fetch
    /// that fails is a 502 naming it, and the server goes on serving.
    @Test func routesAnswerTheResizedJPEGTheBytesAndErrors() throws {
        let body = try Data(
            contentsOf: FixtureGenerator.cachedFixture(Self.fixture, in: testFixtureCache("image-server"))
        )
        for render in [RenderMode.full, .none] {
            let answers = try drive(render: render, body: body) { base in
                let client = CurlMemoryStrategy(workDirectory: FileManager.default.temporaryDirectory)
                let image = try client.fetch(url: URL(string: "\(base)/image/fixture.jpg")!)
                var missing = 0
                do { _ = try client.fetch(url: URL(string: "\(base)/image/missing.jpg")!) } catch FetchError.httpStatus(
                    let status
                ) { missing = status }
                let again = try client.fetch(url: URL(string: "\(base)/image/fixture.jpg")!)
                return (image, missing, again)
            }
            let (image, missing, again) = answers.result
            guard case .memory(let data) = image.payload, case .memory(let second) = again.payload else {
                Issue.record("curl-memory answered a file")
                return
            }
            if render == .none {
                #expect(data == body)
            } else {
                let info = try ImageDecoder.inspect(.memory(data))
                #expect(info.format == .jpeg)
                #expect(info.width == 1024 && info.height == 768, "\(info.width)x\(info.height)")
            }
            #expect(missing == 502)
            #expect(second.count == data.count)
            #expect(answers.report.requestsAnswered == 3)
            #expect(answers.report.requestsFailed == 1)
        }
    }

    /// What goes wrong around a request is answered, and the server goes on serving: an origin that
    /// answers 500 or resets mid-body is a 502 naming the fetch, one that stalls is waited for, a
    /// query no URL may hold is a 400, a client that leaves mid-request and a client that never finishes
    /// its header (slowloris) cost the others nothing. Every request the route took is counted.
    @Test func faultsAreAnsweredAndTheServerKeepsServing() throws {
        let body = try Data(
            contentsOf: FixtureGenerator.cachedFixture(Self.fixture, in: testFixtureCache("image-server"))
        )
        let answers = try drive(render: .stream, body: body) { base in
            let client = CurlMemoryStrategy(workDirectory: FileManager.default.temporaryDirectory)
            func status(_ path: String) -> Int {
                LoadGenerator.send(index: 0, url: URL(string: base + path)!, with: client).status
            }
            let port = Int(base.split(separator: ":").last!)!
            // A request line no URL type would build: its status line read off the socket.
            func rawStatus(_ target: String) throws -> Int {
                let socket = try RawSocket(port: port)
                _ = socket.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                let head = socket.read(until: "\r\n")
                return Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
            }
            // A client that never finishes its header, held open through the rest.
            let slowloris = try RawSocket(port: port)
            _ = slowloris.send("GET /image/fixture.jpg HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            // A client that leaves as soon as its request is sent.
            let leaving = try RawSocket(port: port)
            _ = leaving.send("GET /image/fixture.jpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            shutdown(leaving.descriptor, Int32(SHUT_RDWR))  // gone: its fd is closed with the object
            return [
                status("/image/fixture.jpg?fault=status&code=500"),
                status("/image/fixture.jpg?fault=reset&afterBytes=1000"),
                status("/image/fixture.jpg?fault=slowFirstByte&delayMs=300"),
                try rawStatus("/image/fixture.jpg?fault=%zz"),
                status("/image/fixture.jpg"),
                withExtendedLifetime(slowloris) { status("/image/fixture.jpg") },
            ]
        }
        #expect(answers.result == [502, 502, 200, 400, 200, 200], "\(answers.result)")
        // The route took each of the six requests whose client stayed (three failed: the 500, the
        // reset, the bad query), and the one whose client left when it reached the route.
        #expect((6...7).contains(answers.report.requestsAnswered), "\(answers.report)")
        #expect(answers.report.requestsFailed == 3, "\(answers.report)")
    }

    /// The URLSession strategies open as many connections to the origin as the cap allows: with it
    /// raised to C all C fetches run at once (C connections); as shipped, 6 do and the rest wait in
    /// libcurl's queue for one of the 6. The child reports the cap it ran with.
    @Test func clientCapBoundsTheConnectionsToTheOrigin() throws {
        let body = try Data(
            contentsOf: FixtureGenerator.cachedFixture(Self.fixture, in: testFixtureCache("image-server"))
        )
        let concurrency = StrategySession.shippedConnectionsPerHost + 2
        for cap in [concurrency, nil] {
            let served = try drive(
                render: .none,
                body: body,
                strategy: "data",
                fetchThreads: concurrency,
                clientCap: cap
            ) { base in
                // Each answer waits 400 ms for its head: the fetches overlap.
                let url = URL(string: base + "/image/fixture.jpg?fault=slowFirstByte&delayMs=400")!
                return LoadGenerator.run(
                    count: concurrency,
                    concurrency: concurrency,
                    url: { _ in url },
                    stop: { false }
                )
                .records.map(\.status)
            }
            #expect(served.result == Array(repeating: 200, count: concurrency), "\(served.result)")
            let expected = cap ?? StrategySession.shippedConnectionsPerHost
            #expect(served.report.clientConnectionsPerHost == expected)
            #expect(served.originConnections == expected, "cap \(String(describing: cap))")
        }
    }

    /// `--images DIR`: the origin serves the folder's images (a name a URL cannot hold served under
    /// "_"s, a file that is no image left out) and request i asks for image i mod n, so the answers
    /// alternate between the two images' own sizes.
    @Test func imagesFolderIsServedInTurn() throws {
        let folder = scratch()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = testFixtureCache("image-server")
        try FileManager.default.copyItem(
            at: FixtureGenerator.cachedFixture(Self.fixture, in: cache),
            to: folder.appendingPathComponent("a photo.jpg")
        )
        try FileManager.default.copyItem(
            at: FixtureGenerator.cachedFixture(FixtureSpec(width: 900, height: 1400, quality: 85, seed: 7), in: cache),
            to: folder.appendingPathComponent("b.jpg")
        )
        try Data("not an image".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        var settings = settings(strategy: "download", render: .stream, concurrency: 2, requests: 6)
        settings.imagesFolder = folder
        let result = try serve(settings)
        #expect(result.status == .ok, "\(result.error)")
        #expect(result.imageNames == ["a_photo.jpg", "b.jpg"])
        #expect(result.requests.map(\.status) == Array(repeating: 200, count: 6))
        let bytes = result.requests.map(\.bytes)
        #expect(bytes[0] == bytes[2] && bytes[2] == bytes[4], "\(bytes)")
        #expect(bytes[1] == bytes[3] && bytes[3] == bytes[5], "\(bytes)")
        #expect(bytes[0] != bytes[1], "\(bytes)")
        #expect(result.report.clientConnectionsPerHost == 2)
    }

    /// `--memory-limit`: the server child gets RLIMIT_DATA as it starts; four full decodes of the
    /// article's 6000x4000 JPEG at once (about 440 MB) cannot fit 256 MiB, so an allocation fails:
    /// the decode that cannot allocate is answered 422, or the server dies where Swift traps. Either
    /// way the run is no measurement and its row says why.
    @Test func memoryLimitKillsAServerOverIt() throws {
        var settings = settings(strategy: "data", render: .full, concurrency: 4, requests: 8)
        settings.fixture = FixtureSpec()
        settings.renderThreads = nil
        settings.memoryLimitBytes = 256 << 20
        let result = try serve(settings)
        #expect(result.status != .ok)
        #expect(
            result.error.contains("the server child: crashed") || result.error.contains("status 422"),
            "\(result.error)"
        )
    }

    /// `--no-exact-heap`: the server runs with the malloc wrappers uncounted, and its row has no
    /// exact heap peak (the sampled one stays); counted, it has one.
    @Test func exactHeapCanBeTurnedOffInTheServer() throws {
        for counted in [true, false] {
            let result = try serve(
                settings(strategy: "download", render: .stream, concurrency: 1, requests: 2),
                exactHeap: counted
            )
            #expect(result.status == .ok, "\(result.error)")
            #expect(result.report.heapIsExact == counted)
            #expect(result.report.peakHeapBytes != nil)
        }
    }

    /// Who holds the exact heap at the server's peak is named as in a trial: with two full renders at
    /// once, the largest holder is the decoder's bitmaps (one per rendering request, 1600 x 1200 x 4
    /// bytes each), and the data task's bodies are there as `body`.
    @Test func holdersNameTheBitmapsAndBodiesAtThePeak() throws {
        var settings = settings(strategy: "data", render: .full, concurrency: 2, requests: 6)
        settings.renderThreads = nil
        let result = try serve(settings)
        #expect(result.status == .ok, "\(result.error)")
        let holders = try #require(result.holders)
        let largest = try #require(holders.first)
        let bitmap = 1600 * 1200 * 4
        #expect(largest.role == .bitmap, "\(holders.map { "\($0.allocatedBy) \($0.role as Any)" })")
        #expect((1...2).contains(largest.blocks), "\(largest.blocks)")
        #expect(largest.bytes >= largest.blocks * bitmap && largest.bytes <= largest.blocks * (bitmap + 65_536))
        #expect(holders.contains { $0.role == .body }, "\(holders.map { "\($0.allocatedBy) \($0.role as Any)" })")
    }

    /// Runs a server child without the scenario's load: `body` gets its base URL, after the window opened.
    /// `work`: the child's work folder (its requests' files are in `requests/`), removed after.
    func drive<Value: Sendable>(
        render: RenderMode,
        body: Data,
        strategy: String = "curl-memory",
        fetchThreads: Int = 2,
        clientCap: Int? = nil,
        upload: UploadBody = .collect,
        work: URL? = nil,
        resources: [String: Data] = [:],
        memoryBudget: Int? = nil,
        queueLimit: Int? = nil,
        _ requests: @escaping @Sendable (String) throws -> Value
    ) throws -> (result: Value, report: ServerReport, originConnections: Int) {
        let origin = LoopbackServer()
        origin.addResource(path: "/fixture.jpg", body: body, contentType: "image/jpeg")
        for (path, bytes) in resources { origin.addResource(path: path, body: bytes) }
        try origin.start()
        defer { origin.shutdown() }
        let work = work ?? scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        var spec = ServerSpec(
            strategy: strategy,
            render: render,
            originURL: origin.url(for: "/"),
            fetchThreads: fetchThreads,
            renderThreads: 1,
            workDirectory: work
        )
        spec.clientCap = clientCap
        spec.timeoutSeconds = 60
        spec.upload = upload
        spec.memoryBudgetBytes = memoryBudget
        spec.queueLimit = queueLimit
        let outcome = Mutex<Result<Value, any Error>?>(nil)
        let launched = ChildProcessLauncher(executable: benchExecutable()).run(spec, reporting: ServerReport.self) {
            pid in
            outcome.withLock {
                $0 = Result {
                    var port: Int?
                    for _ in 0..<2000 where port == nil && !ChildProcess.hasEnded(pid) {
                        port = ServerControl.port(in: work)
                        usleep(5_000)
                    }
                    let base = "http://127.0.0.1:\(try #require(port))"
                    _ = try CurlMemoryStrategy(workDirectory: work).fetch(
                        url: URL(string: base + ServerControl.windowPath)!
                    )
                    return try requests(base)
                }
            }
        }
        guard case .reported(let report, _) = launched else {
            throw TestFailure("the server child failed: \(launched)")
        }
        #expect(report.status == .ok, "\(report.error)")
        return (try #require(outcome.withLock { $0 }).get(), report, origin.connectionCount)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
