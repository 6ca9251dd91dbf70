import DownloadPublisher
import Foundation
import LoopbackServer
import OpenCombine

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server with one body at /body, a fresh destination folder, and subscriptions to the publisher.
struct Harness {
    var server: LoopbackServer
    var body: Data
    var destination: URL

    func subscribe(to path: String, demand: Subscribers.Demand = .max(1)) -> Recorder {
        subscribe(to: server.url(for: path), demand: demand)
    }

    func subscribe(to url: URL, demand: Subscribers.Demand = .max(1), destination: URL? = nil) -> Recorder {
        let recorder = Recorder(demand: demand)
        URLSession.shared.downloadTaskPublisher(for: url, movingTo: destination ?? self.destination)
            .subscribe(recorder.subscriber)
        return recorder
    }

    func filesInDestination() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: destination.path)
    }
}

func withHarness(bandwidth: Int? = nil, bodySize: Int = 2_000_000, _ test: (Harness) throws -> Void) throws {
    let server = LoopbackServer(configuration: .init(bandwidthBytesPerSecond: bandwidth))
    let body = Data((0..<bodySize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
    server.addResource(path: "/body", body: body)
    try server.start()
    defer { server.shutdown() }
    let destination = FileManager.default.temporaryDirectory
        .appendingPathComponent("DownloadPublisherTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: destination) }
    try test(Harness(server: server, body: body, destination: destination))
}

/// Records what a `RetainingSubscriber` receives, in order.
final class Recorder {
    enum Event {
        case value(URL, URLResponse)
        case finished
        case failure(URLError)

        var kind: String {
            switch self {
            case .value: return "value"
            case .finished: return "finished"
            case .failure: return "failure"
            }
        }
    }

    private let lock = NSLock()
    private var recorded: [Event] = []
    private let completed = DispatchSemaphore(value: 0)
    private(set) var subscriber: RetainingSubscriber<DownloadTaskPublisher.Output, URLError>!

    init(demand: Subscribers.Demand) {
        subscriber = RetainingSubscriber(
            demand: demand,
            receiveValue: { [unowned self] output in
                record(.value(output.url, output.response))
            },
            receiveCompletion: { [unowned self] completion in
                switch completion {
                case .finished: record(.finished)
                case .failure(let error): record(.failure(error))
                }
                completed.signal()
            }
        )
    }

    private func record(_ event: Event) {
        lock.withLock { recorded.append(event) }
    }

    var events: [Event] { lock.withLock { recorded } }

    var file: URL? {
        events.lazy.compactMap { if case .value(let url, _) = $0 { url } else { nil } }.first
    }

    var response: URLResponse? {
        events.lazy.compactMap { if case .value(_, let response) = $0 { response } else { nil } }.first
    }

    var failure: URLError? {
        events.lazy.compactMap { if case .failure(let error) = $0 { error } else { nil } }.first
    }

    struct Timeout: Error {}

    /// Waits for `.finished` or `.failure`, at most `seconds`.
    func waitForCompletion(seconds: Double = 30) throws {
        guard completed.wait(timeout: .now() + seconds) == .success else { throw Timeout() }
    }
}

/// Polls `condition` every 10 ms for at most `seconds`.
func waitUntil(seconds: Double = 10, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { throw Recorder.Timeout() }
        Thread.sleep(forTimeInterval: 0.01)
    }
}
