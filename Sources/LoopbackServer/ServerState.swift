import Foundation
import NIOCore
import Synchronization

/// One servable body: made into a ByteBuffer once, then handed out as cheap copies that
/// share its storage (a ByteBuffer copy is copy-on-write and we only ever read it).
struct Resource: Sendable {
    var body: ByteBuffer
    var contentType: String
}

/// Many paths, few bodies: `<prefix><n><suffix>` for n in 0..<count serves body n % bodies.count.
/// A list of 10,000 rows cycling over 8 fixtures holds 8 bodies, not 10,000 copies.
struct ResourceFamily: Sendable {
    var prefix: String
    var suffix: String
    var count: Int
    var bodies: [Resource]

    func resource(for path: String) -> Resource? {
        guard path.hasPrefix(prefix), path.hasSuffix(suffix),
            path.count > prefix.count + suffix.count
        else { return nil }
        let number = path.dropFirst(prefix.count).dropLast(suffix.count)
        // Digits only: "+1" or "01" would be a second name for the same row.
        guard number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
            number == "0" || !number.hasPrefix("0"),
            let n = Int(number), (0..<count).contains(n)
        else { return nil }
        return bodies[n % bodies.count]
    }
}

/// What the event loop and the caller's threads share: resources and counters, behind a lock.
///
/// Bookkeeping is bounded: requests to a servable path (a resource, a family member,
/// `/warmup`) are always counted per path; other paths are counted per path only up to
/// `maxOtherPaths` distinct ones, then in one shared bucket. A client requesting
/// millions of distinct unknown paths cannot grow the server's memory.
final class ServerState: Sendable {
    static let maxOtherPaths = 1024

    private struct State {
        var resources: [String: Resource] = [:]
        var families: [ResourceFamily] = []
        var requestsByPath: [String: Int] = [:]
        var otherPathsCounted = 0
        var otherBucket = 0
        var totalRequests = 0
        var connections = 0
        var open = 0
        var refused = 0
        var timedOut = 0
        var bodyBytesSent = 0

        func resource(for path: String) -> Resource? {
            if let resource = resources[path] { return resource }
            for family in families.reversed() {
                if let resource = family.resource(for: path) { return resource }
            }
            return nil
        }
    }

    private let state = Mutex(State())

    func setResource(_ resource: Resource, for path: String) {
        state.withLock { $0.resources[path] = resource }
    }

    func removeResource(for path: String) {
        _ = state.withLock { $0.resources.removeValue(forKey: path) }
    }

    func addFamily(_ family: ResourceFamily) {
        state.withLock { $0.families.append(family) }
    }

    func resource(for path: String) -> Resource? {
        state.withLock { $0.resource(for: path) }
    }

    func recordRequest(path: String) {
        state.withLock { state in
            state.totalRequests += 1
            if state.requestsByPath[path] != nil || path == "/warmup" || state.resource(for: path) != nil {
                state.requestsByPath[path, default: 0] += 1
            } else if state.otherPathsCounted < ServerState.maxOtherPaths {
                state.otherPathsCounted += 1
                state.requestsByPath[path] = 1
            } else {
                state.otherBucket += 1
            }
        }
    }

    /// Counts an accepted connection; false (and counted as refused) when `limit` are already open.
    func openConnection(limit: Int) -> Bool {
        state.withLock { state in
            guard state.open < limit else {
                state.refused += 1
                return false
            }
            state.open += 1
            state.connections += 1
            return true
        }
    }

    func closeConnection() { state.withLock { $0.open -= 1 } }
    func recordTimeout() { state.withLock { $0.timedOut += 1 } }

    func recordBodyBytes(_ count: Int) {
        state.withLock { $0.bodyBytesSent += count }
    }

    func requestCount(path: String) -> Int { state.withLock { $0.requestsByPath[path] ?? 0 } }
    var totalRequestCount: Int { state.withLock { $0.totalRequests } }
    var bytesSent: Int { state.withLock { $0.bodyBytesSent } }
    var connectionCount: Int { state.withLock { $0.connections } }
    var openConnectionCount: Int { state.withLock { $0.open } }
    var refusedConnectionCount: Int { state.withLock { $0.refused } }
    var timedOutConnectionCount: Int { state.withLock { $0.timedOut } }
    /// Distinct paths with a count of their own (bounded), and requests in the shared bucket.
    var countedPathCount: Int { state.withLock { $0.requestsByPath.count } }
    var uncountedPathRequests: Int { state.withLock { $0.otherBucket } }

    func resetCounters() {
        state.withLock { state in
            // Resources and open connections stay: only what was counted goes.
            state = State(resources: state.resources, families: state.families, open: state.open)
        }
    }
}
