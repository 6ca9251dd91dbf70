import Foundation
import NIOCore

/// One servable body: made into a ByteBuffer once, then handed out as cheap copies that
/// share its storage (a ByteBuffer copy is copy-on-write and we only ever read it).
struct Resource {
    var body: ByteBuffer
    var contentType: String
}

/// What the event loop and the caller's threads share: resources and counters, behind a lock.
final class ServerState: @unchecked Sendable {
    private let lock = NSLock()
    private var resources: [String: Resource] = [:]
    private var requestsByPath: [String: Int] = [:]
    private var totalRequests = 0
    private var connections = 0
    private var bodyBytesSent = 0

    func setResource(_ resource: Resource, for path: String) {
        lock.withLock { resources[path] = resource }
    }

    func resource(for path: String) -> Resource? {
        lock.withLock { resources[path] }
    }

    func recordRequest(path: String) {
        lock.withLock {
            requestsByPath[path, default: 0] += 1
            totalRequests += 1
        }
    }

    func recordConnection() {
        lock.withLock { connections += 1 }
    }

    func recordBodyBytes(_ count: Int) {
        lock.withLock { bodyBytesSent += count }
    }

    func requestCount(path: String) -> Int { lock.withLock { requestsByPath[path] ?? 0 } }
    var totalRequestCount: Int { lock.withLock { totalRequests } }
    var bytesSent: Int { lock.withLock { bodyBytesSent } }
    var connectionCount: Int { lock.withLock { connections } }

    func resetCounters() {
        lock.withLock {
            requestsByPath = [:]
            totalRequests = 0
            bodyBytesSent = 0
            connections = 0
        }
    }
}
