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
        let received = NSMutableArray()
        let done = DispatchGroup()
        var subscriptions: [AnyCancellable] = []
        for _ in 0..<8 {
            done.enter()
            subscriptions.append(requests.publisher(for: url).sink(
                receiveCompletion: { _ in done.leave() },
                receiveValue: { data in received.add(data as NSData) }))
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        withExtendedLifetime(subscriptions) {}

        XCTAssertEqual(server.requestCount(path: "/image.jpg"), 1)
        XCTAssertEqual(received.count, 8)
        let bodies = received.compactMap { $0 as? Data }
        XCTAssertTrue(bodies.allSatisfy { $0 == body })
        // One buffer, eight references: the subscribers did not get copies.
        let addresses = Set(bodies.map { $0.withUnsafeBytes { Int(bitPattern: $0.baseAddress) } })
        XCTAssertEqual(addresses.count, 1)
    }
}
