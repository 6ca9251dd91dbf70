import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import OpenCombine
import Scenarios
import XCTest

final class SharedRequestsTests: XCTestCase {
    /// Eight subscribers to one URL: one request at the server and one body in memory.
    func testEightSubscribersShareOneRequestAndOneBody() throws {
        let server = LoopbackServer()
        let body = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        server.addResource(path: "/image.jpg", body: body)
        try server.start()
        defer { server.shutdown() }

        // A slow first byte keeps the transfer in flight while all eight subscribe.
        let url = server.url(for: "/image.jpg", fault: .slowFirstByte(milliseconds: 300))
        let requests = SharedRequests()
        let received = Received()
        let done = DispatchGroup()
        var subscriptions: [AnyCancellable] = []
        for _ in 0..<8 {
            done.enter()
            subscriptions.append(requests.publisher(for: url).sink(
                receiveCompletion: { _ in done.leave() },
                receiveValue: { data in received.add(data) }))
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        withExtendedLifetime(subscriptions) {}

        XCTAssertEqual(server.requestCount(path: "/image.jpg"), 1)
        let bodies = received.all
        XCTAssertEqual(bodies.count, 8)
        XCTAssertTrue(bodies.allSatisfy { $0 == body })
        // One buffer, eight references: the subscribers did not get copies.
        let addresses = Set(bodies.map { $0.withUnsafeBytes { Int(bitPattern: $0.baseAddress) } })
        XCTAssertEqual(addresses.count, 1)
    }
}

/// The bodies the subscribers received, kept as the same `Data` values (no bridging copies).
private final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var bodies: [Data] = []
    func add(_ body: Data) { lock.withLock { bodies.append(body) } }
    var all: [Data] { lock.withLock { bodies } }
}
