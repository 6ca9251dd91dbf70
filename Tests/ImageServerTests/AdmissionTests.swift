import BenchCore
import Foundation
import ImageServer
import Imaging
import Scenarios
import Strategies
import Synchronization
import TestSupport
import Testing

/// `--memory-budget`, `--workers` and `--queue` in a real `bench _server` child under real load:
/// calibration requests whose cost the prediction knows (a block of 8 MiB and a request's fixed share).
@Suite(.serialized) struct AdmissionTests {
    let server = ImageServerChildTests()
    static let block = 8 << 20
    /// What the gate reserves for one calibration request: its block and a request's fixed share.
    static let perRequest = block + RequestCost.perRequestBytes

    func calibration(concurrency: Int, requests: Int) -> ImageServerScenario.Settings {
        var settings = server.settings(
            strategy: "curl-memory",
            render: .none,
            concurrency: concurrency,
            requests: requests
        )
        settings.calibrationBlockBytes = Self.block
        settings.renderThreads = nil
        return settings
    }

    /// C = 16 requests in flight against a budget of 4: at most 4 are admitted at once, the rest
    /// wait and are served; the exact heap peak stays within the 4 blocks and a little (the fixed
    /// cost), where the same load without a budget holds at least 8 blocks.
    @Test func theBudgetHoldsThePeakAtC16() throws {
        var settings = calibration(concurrency: 16, requests: 64)
        settings.memoryBudgetBytes = 4 * Self.perRequest
        let bounded = try server.serve(settings)
        #expect(bounded.status == .ok, "\(bounded.error)")
        #expect(bounded.requestsOK == 64)
        let admission = try #require(bounded.report.admission)
        #expect(admission.mostAdmitted == 4)
        #expect((1...12).contains(admission.mostQueued), "\(admission.mostQueued) waiting at most")
        #expect(admission.mostReservedBytes <= 4 * Self.perRequest)
        #expect(admission.rejectedQueueFull == 0 && bounded.report.overruns == 0)
        #expect(try #require(bounded.queueTime(quantile: 0.99)) > 0)
        let peak = try #require(bounded.peakHeapDeltaBytes)
        #expect(peak >= 3 * Self.block && peak <= 4 * Self.perRequest + (2 << 20), "peak \(peak) under the budget")

        settings.memoryBudgetBytes = nil
        let unbounded = try server.serve(settings)
        #expect(unbounded.report.admission == nil)
        #expect(try #require(unbounded.peakHeapDeltaBytes) >= 8 * Self.block, "without a budget, C = 16 hold more")
    }

    /// Past the queue's length a request is answered 503 at once and counted; the rest are served,
    /// never more than the budget's 4 at once nor more than 2 waiting.
    @Test func aFullQueueIsAnswered503() throws {
        var settings = calibration(concurrency: 16, requests: 64)
        settings.memoryBudgetBytes = 4 * Self.perRequest
        settings.queueLimit = 2
        let result = try server.serve(settings)
        #expect(result.status == .ok, "\(result.error)")
        let statuses = result.requests.map(\.status)
        let refused = statuses.filter { $0 == 503 }.count
        #expect(refused > 0)
        #expect(statuses.filter { $0 == 200 }.count + refused == 64, "\(Set(statuses))")
        let admission = try #require(result.report.admission)
        #expect(admission.rejectedQueueFull == refused)
        #expect(admission.mostAdmitted <= 4 && admission.mostQueued <= 2)
    }

    /// `--workers 3`: a count of requests at once, whatever they cost.
    @Test func workersBoundTheRequestsAtOnce() throws {
        var settings = calibration(concurrency: 8, requests: 32)
        settings.workers = 3
        let result = try server.serve(settings)
        #expect(result.status == .ok, "\(result.error)")
        #expect(result.requestsOK == 32)
        #expect(result.report.admission?.mostAdmitted == 3)
        let peak = try #require(result.peakHeapDeltaBytes)
        #expect(peak >= 2 * Self.block && peak <= 3 * Self.perRequest + (2 << 20), "peak \(peak)")
    }

    /// A 65280x65280 PNG is refused with 413 naming --max-image-pixels, fetched or uploaded, before
    /// its body is held: the 64 MiB behind its header never enters the heap. The server goes on serving.
    @Test func tooManyPixelsIsRefusedBeforeTheBodyIsHeld() throws {
        let huge = HostileHeaders.png(width: 65280, height: 65280) + Data(count: 64 << 20)
        let fixture = try Data(
            contentsOf: FixtureGenerator.cachedFixture(
                ImageServerChildTests.fixture,
                in: testFixtureCache("image-server")
            )
        )
        let answers = try server.drive(
            render: .stream,
            body: fixture,
            resources: ["/huge.png": huge],
            memoryBudget: 256 << 20
        ) { base in
            let client = CurlMemoryStrategy(workDirectory: FileManager.default.temporaryDirectory)
            let get = LoadGenerator.send(index: 0, url: URL(string: base + "/image/huge.png")!, with: client)
            let post = LoadGenerator.send(index: 1) {
                try client.fetch(url: URL(string: base + "/image")!, posting: huge)
            }
            let served = LoadGenerator.send(index: 2, url: URL(string: base + "/image/fixture.jpg")!, with: client)
            return [get.status, post.status, served.status]
        }
        #expect(answers.result == [413, 413, 200], "\(answers.result)")
        #expect(answers.report.rejectedTooManyPixels == 2)
        let peak = try #require(answers.report.peakHeapBytes) - (answers.report.baselineHeapBytes ?? 0)
        #expect(peak < 16 << 20, "the heap peak \(peak) holds no 64 MiB body")
    }

    /// An upload without Content-Length (chunked) gives no size to predict from: the largest body is
    /// assumed, which a small budget cannot hold, and the 413 says why rather than only that it is too large.
    @Test func anUploadOfUnknownSizeIsRefusedSayingWhy() throws {
        let image = HostileHeaders.png(width: 640, height: 480)
        let answers = try server.drive(render: .full, body: Data(count: 16), memoryBudget: 64 << 20) { base in
            let socket = try RawSocket(port: Int(base.split(separator: ":").last!)!)
            _ = socket.send(
                "POST /image HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                    + String(image.count, radix: 16) + "\r\n"
            )
            _ = socket.send(image + Data("\r\n0\r\n\r\n".utf8))
            return String(decoding: socket.readAll().data, as: UTF8.self)
        }
        #expect(answers.result.hasPrefix("HTTP/1.1 413"), "\(answers.result.prefix(200))")
        #expect(answers.result.contains("the upload has no Content-Length"), "\(answers.result)")
    }

    /// A request that holds more than it was admitted for is counted and named: a calibration
    /// request predicted at 1 MiB that holds its 8 MiB block.
    @Test func anOverrunIsCountedAndNamed() throws {
        let answers = try server.drive(
            render: .none,
            body: Data(count: 16),
            memoryBudget: 64 << 20
        ) { base in
            let client = CurlMemoryStrategy(workDirectory: FileManager.default.temporaryDirectory)
            let path = ServerControl.calibrationPath(bytes: Self.block)
            return [
                LoadGenerator.send(index: 0, url: URL(string: base + path + "?predicted=\(1 << 20)")!, with: client)
                    .status,
                LoadGenerator.send(index: 1, url: URL(string: base + path)!, with: client).status,
            ]
        }
        #expect(answers.result == [200, 200])
        #expect(answers.report.overruns == 1)
        #expect(answers.report.overrunNames.first?.hasPrefix("calibration \(Self.block): reserved 1048576") == true)
    }

    /// A 503 tells the client when to come back: Retry-After. Four requests at once against a budget
    /// of one and no queue: the others are refused (bounded rounds, in case they arrive one by one).
    @Test func aRefusalSaysRetryAfter() throws {
        let answers = try server.drive(
            render: .none,
            body: Data(count: 16),
            fetchThreads: 4,
            memoryBudget: Self.perRequest,
            queueLimit: 0
        ) { base in
            let port = Int(base.split(separator: ":").last!)!
            let heads = Mutex<[String]>([])
            for _ in 0..<10 where !heads.withLock({ $0.contains { $0.hasPrefix("HTTP/1.1 503") } }) {
                DispatchQueue.concurrentPerform(iterations: 4) { _ in
                    guard let socket = try? RawSocket(port: port) else { return }
                    _ = socket.send(
                        "GET \(ServerControl.calibrationPath(bytes: Self.block)) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            + "Connection: close\r\n\r\n"
                    )
                    let head = socket.read(until: "\r\n\r\n")
                    heads.withLock { $0.append(head) }
                }
            }
            return heads.withLock { $0 }
        }
        let refusals = answers.result.filter { $0.hasPrefix("HTTP/1.1 503") }
        #expect(!refusals.isEmpty, "\(answers.result.map { $0.prefix(12) })")
        for refusal in refusals {
            #expect(refusal.lowercased().contains("retry-after: \(ServerControl.retryAfterSeconds)"), "\(refusal)")
        }
    }
}
