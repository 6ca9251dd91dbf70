import Foundation
import NIOCore

/// One servable body: made into a ByteBuffer once, then handed out as cheap copies that
/// share its storage (a ByteBuffer copy is copy-on-write and we only ever read it).
struct Resource {
    var body: ByteBuffer
    var contentType: String
}

/// Many paths, few bodies: `<prefix><n><suffix>` for n in 0..<count serves body n % bodies.count.
/// A list of 10,000 rows cycling over 8 fixtures holds 8 bodies, not 10,000 copies.
struct ResourceFamily {
    var prefix: String
    var suffix: String
    var count: Int
    var bodies: [Resource]

    func resource(for path: String) -> Resource? {
        guard path.hasPrefix(prefix), path.hasSuffix(suffix),
              path.count > prefix.count + suffix.count else { return nil }
        let number = path.dropFirst(prefix.count).dropLast(suffix.count)
        // Digits only: "+1" or "01" would be a second name for the same row.
        guard number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
              number == "0" || !number.hasPrefix("0"),
              let n = Int(number), (0..<count).contains(n) else { return nil }
        return bodies[n % bodies.count]
    }
}

/// What the event loop and the caller's threads share: resources and counters, behind a lock.
///
/// Bookkeeping is bounded: requests to a servable path (a resource, a family member,
/// `/warmup`) are always counted per path; other paths are counted per path only up to
/// `maxOtherPaths` distinct ones, then in one shared bucket. A client requesting
/// millions of distinct unknown paths cannot grow the server's memory.
final class ServerState: @unchecked Sendable {
    static let maxOtherPaths = 1024

    private let lock = NSLock()
    private var resources: [String: Resource] = [:]
    private var families: [ResourceFamily] = []
    private var requestsByPath: [String: Int] = [:]
    private var otherPathsCounted = 0
    private var otherBucket = 0
    private var totalRequests = 0
    private var connections = 0
    private var open = 0
    private var refused = 0
    private var timedOut = 0
    private var bodyBytesSent = 0

    func setResource(_ resource: Resource, for path: String) {
        lock.withLock { resources[path] = resource }
    }

    func removeResource(for path: String) {
        _ = lock.withLock { resources.removeValue(forKey: path) }
    }

    func addFamily(_ family: ResourceFamily) {
        lock.withLock { families.append(family) }
    }

    func resource(for path: String) -> Resource? {
        lock.withLock { lockedResource(for: path) }
    }

    private func lockedResource(for path: String) -> Resource? {
        if let resource = resources[path] { return resource }
        for family in families.reversed() {
            if let resource = family.resource(for: path) { return resource }
        }
        return nil
    }

    func recordRequest(path: String) {
        lock.withLock {
            totalRequests += 1
            if requestsByPath[path] != nil || path == "/warmup" || lockedResource(for: path) != nil {
                requestsByPath[path, default: 0] += 1
            } else if otherPathsCounted < ServerState.maxOtherPaths {
                otherPathsCounted += 1
                requestsByPath[path] = 1
            } else {
                otherBucket += 1
            }
        }
    }

    /// Counts an accepted connection; false (and counted as refused) when `limit` are already open.
    func openConnection(limit: Int) -> Bool {
        lock.withLock {
            guard open < limit else {
                refused += 1
                return false
            }
            open += 1
            connections += 1
            return true
        }
    }

    func closeConnection() { lock.withLock { open -= 1 } }
    func recordTimeout() { lock.withLock { timedOut += 1 } }

    func recordBodyBytes(_ count: Int) {
        lock.withLock { bodyBytesSent += count }
    }

    func requestCount(path: String) -> Int { lock.withLock { requestsByPath[path] ?? 0 } }
    var totalRequestCount: Int { lock.withLock { totalRequests } }
    var bytesSent: Int { lock.withLock { bodyBytesSent } }
    var connectionCount: Int { lock.withLock { connections } }
    var openConnectionCount: Int { lock.withLock { open } }
    var refusedConnectionCount: Int { lock.withLock { refused } }
    var timedOutConnectionCount: Int { lock.withLock { timedOut } }
    /// Distinct paths with a count of their own (bounded), and requests in the shared bucket.
    var countedPathCount: Int { lock.withLock { requestsByPath.count } }
    var uncountedPathRequests: Int { lock.withLock { otherBucket } }

    func resetCounters() {
        lock.withLock {
            requestsByPath = [:]
            otherPathsCounted = 0
            otherBucket = 0
            totalRequests = 0
            bodyBytesSent = 0
            connections = 0
            refused = 0
            timedOut = 0
        }
    }
}
