import Foundation
import LoopbackServer
import OpenCombine
import OpenCombineFoundation
import Probe
import Scenarios
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.serialized) struct SharedRequestsTests {
    /// Eight subscribers to one URL: one request at the server and one body in memory.
    @Test func eightSubscribersShareOneRequestAndOneBody() throws {
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
            subscriptions.append(
                requests.publisher(for: url).sink(
                    receiveCompletion: { _ in done.leave() },
                    receiveValue: { data in received.add(data) }
                )
            )
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        withExtendedLifetime(subscriptions) {}

        #expect(server.requestCount(path: "/image.jpg") == 1)
        let bodies = received.all
        #expect(bodies.count == 8)
        #expect(bodies.allSatisfy { $0 == body })
        // One buffer, eight references: the subscribers did not get copies.
        let addresses = Set(bodies.map { $0.withUnsafeBytes { Int(bitPattern: $0.baseAddress) } })
        #expect(addresses.count == 1)
    }
}

extension SharedRequestsTests {
    /// The memory difference: eight separate publishers hold eight bodies, shared ones hold one.
    @Test func sharingKeepsOneBodyWhereSeparateRequestsKeepEight() throws {
        let server = LoopbackServer()
        let body = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server.addResource(path: "/image.jpg", body: body)
        try server.start()
        defer { server.shutdown() }
        let url = server.url(for: "/image.jpg", fault: .slowFirstByte(milliseconds: 300))
        let heap = try HeapCounters(expecting: .system)

        func retainedBytes(_ publisher: () -> AnyPublisher<Data, URLError>) -> (bytes: Int, bodies: Int) {
            let before = heap.read().allocated
            let received = Received()
            let done = DispatchGroup()
            var subscriptions: [AnyCancellable] = []
            for _ in 0..<8 {
                done.enter()
                subscriptions.append(
                    publisher().sink(
                        receiveCompletion: { _ in done.leave() },
                        receiveValue: { received.add($0) }
                    )
                )
            }
            // Kept until the completions: an optimized build may release an object after its last use.
            withExtendedLifetime(subscriptions) { _ = done.wait(timeout: .now() + 30) }
            subscriptions.removeAll()
            return (settledAllocatedBytes() - before, received.all.count)
        }

        /// FoundationNetworking frees each transfer's receive buffer on its own queue just after the
        /// completion (as the harness's settle accounts for): read the heap once it has stopped moving
        /// (two readings 20 ms apart within 64 KiB; at most 2 s), so that neither side is read mid-release.
        func settledAllocatedBytes() -> Int {
            var last = heap.read().allocated
            for _ in 0..<100 {
                usleep(20_000)
                let now = heap.read().allocated
                if abs(now - last) < 64 << 10 { return now }
                last = now
            }
            return last
        }

        let requests = SharedRequests()
        let shared = retainedBytes { requests.publisher(for: url) }
        let separate = retainedBytes {
            URLSession.shared.ocombine.dataTaskPublisher(for: url).map(\.data).eraseToAnyPublisher()
        }
        print(
            "8 subscribers: shared retain \(shared.bytes) bytes, separate \(separate.bytes) bytes (body \(body.count))"
        )
        #expect(shared.bodies == 8)
        #expect(separate.bodies == 8)
        #expect(server.requestCount(path: "/image.jpg") == 1 + 8)
        // Seven bodies more, give or take the allocator's slack; never more than eight bodies and their buffers.
        #expect(separate.bytes - shared.bytes >= 6 * body.count)
        #expect(separate.bytes - shared.bytes <= 8 * 2 * body.count + (1 << 20))
    }
}

/// The bodies the subscribers received, kept as the same `Data` values (no bridging copies).
private final class Received: Sendable {
    private let bodies = Mutex<[Data]>([])
    func add(_ body: Data) { bodies.withLock { $0.append(body) } }
    var all: [Data] { bodies.withLock { $0 } }
}
