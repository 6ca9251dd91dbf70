import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An HTTP/1.1 server on loopback that serves in-memory resources to the measured child
/// processes. It runs in the parent, on one event-loop thread, so it stays light on a
/// small machine and none of its memory is counted against a child.
///
/// Routes: every added resource (GET, HEAD), `/warmup` (1 KiB), `/status/<code>`; anything
/// else is 404. Any path accepts a `ServerFault` in its query string.
public final class LoopbackServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free ephemeral port; read it back from `port` after `start()`.
        public var port: Int
        /// Per-response pacing of body bytes; nil sends as fast as the socket takes them.
        public var bandwidthBytesPerSecond: Int?
        /// Connections open at once; one more is answered 503 and closed. The default stays
        /// well under the usual 1024 open files, so a flood of idle clients cannot starve the
        /// process (or a benchmark run hosting the server) of descriptors.
        public var maxConnections: Int
        /// Seconds a new connection has to deliver its whole first request (headers and body);
        /// then it is closed. Stops slowloris clients that trickle header bytes.
        public var requestTimeoutSeconds: Double
        /// Seconds a kept-alive connection may sit between responses and its next complete request.
        public var idleTimeoutSeconds: Double

        public static let defaultMaxConnections = 256
        public static let defaultRequestTimeoutSeconds = 10.0
        public static let defaultIdleTimeoutSeconds = 60.0

        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            bandwidthBytesPerSecond: Int? = nil,
            maxConnections: Int = Configuration.defaultMaxConnections,
            requestTimeoutSeconds: Double = Configuration.defaultRequestTimeoutSeconds,
            idleTimeoutSeconds: Double = Configuration.defaultIdleTimeoutSeconds
        ) {
            self.host = host
            self.port = port
            self.bandwidthBytesPerSecond = bandwidthBytesPerSecond
            self.maxConnections = maxConnections
            self.requestTimeoutSeconds = requestTimeoutSeconds
            self.idleTimeoutSeconds = idleTimeoutSeconds
        }
    }

    package enum ServerError: Error, Equatable, CustomStringConvertible {
        case alreadyStarted
        case alreadyShutDown
        case invalidBandwidth(Int)
        case invalidLimit(String)
        /// bind(2) or listen(2) failed: `errno` says why (EADDRINUSE: another server holds the port).
        case cannotListen(host: String, port: Int, errno: Int32)

        package var description: String {
            switch self {
            case .alreadyStarted: return "the server is already started"
            case .alreadyShutDown: return "the server is shut down"
            case .invalidBandwidth(let rate): return "bandwidth must be positive (got \(rate))"
            case .invalidLimit(let problem): return problem
            case .cannotListen(let host, let port, let errno) where errno == EADDRINUSE:
                return "port \(port) on \(host) is in use (another server holds it)"
            case .cannotListen(let host, let port, let errno):
                return "cannot listen on port \(port) on \(host): \(String(cString: strerror(errno)))"
            }
        }
    }

    public let configuration: Configuration
    private let state = ServerState()
    private struct Lifecycle {
        var group: MultiThreadedEventLoopGroup?
        var serverChannel: Channel?
        var boundPort = 0
        var isShutDown = false
    }
    // Held across start/shutdown so they never interleave.
    private let lifecycle = Mutex(Lifecycle())

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// A server dropped without `shutdown()` is stopped without waiting: blocking here would
    /// trap when the last reference goes on one of its own event-loop threads.
    deinit {
        let group = lifecycle.withLock { lifecycle -> MultiThreadedEventLoopGroup? in
            guard !lifecycle.isShutDown else { return nil }
            lifecycle.isShutDown = true
            lifecycle.serverChannel = nil
            return lifecycle.group
        }
        group?.shutdownGracefully { _ in }
    }

    /// Serves `body` at `path` (e.g. "/fixture.jpg"). The body is copied once into a
    /// ByteBuffer here; requests share that buffer. Replaces an earlier resource at `path`.
    public func addResource(path: String, body: Data, contentType: String = "application/octet-stream") {
        var buffer = ByteBufferAllocator().buffer(capacity: body.count)
        _ = body.withUnsafeBytes { buffer.writeBytes($0) }
        state.setResource(Resource(body: buffer, contentType: contentType), for: LoopbackServer.normalized(path))
    }

    /// Stops serving `path` and lets its body go (a corpus serves each image only while it is measured).
    package func removeResource(path: String) {
        state.removeResource(for: LoopbackServer.normalized(path))
    }

    /// Serves `count` paths `<prefix><n><suffix>` (n in 0..<count, e.g. "/row/17.jpg") over a
    /// few bodies: path n gets `bodies[n % bodies.count]`. Each body is copied once into a
    /// ByteBuffer that all its paths share, so 10,000 rows over 8 bodies hold 8 buffers.
    package func addResourceFamily(
        prefix: String,
        suffix: String,
        count: Int,
        bodies: [Data],
        contentType: String = "application/octet-stream"
    ) {
        precondition(!bodies.isEmpty, "a resource family needs at least one body")
        let resources = bodies.map { body -> Resource in
            var buffer = ByteBufferAllocator().buffer(capacity: body.count)
            _ = body.withUnsafeBytes { buffer.writeBytes($0) }
            return Resource(body: buffer, contentType: contentType)
        }
        state.addFamily(
            ResourceFamily(
                prefix: LoopbackServer.normalized(prefix),
                suffix: suffix,
                count: max(0, count),
                bodies: resources
            )
        )
    }

    /// Binds and returns once the server is listening.
    public func start() throws {
        try lifecycle.withLock { (lifecycle: inout Lifecycle) throws in
            guard !lifecycle.isShutDown else { throw ServerError.alreadyShutDown }
            guard lifecycle.group == nil else { throw ServerError.alreadyStarted }
            if let rate = configuration.bandwidthBytesPerSecond, rate <= 0 {
                throw ServerError.invalidBandwidth(rate)
            }
            guard configuration.maxConnections >= 1 else {
                throw ServerError.invalidLimit("maxConnections must be at least 1")
            }
            for (name, seconds) in [
                ("requestTimeoutSeconds", configuration.requestTimeoutSeconds),
                ("idleTimeoutSeconds", configuration.idleTimeoutSeconds),
            ]
            where !(seconds.isFinite && seconds > 0 && seconds <= 86_400) {
                throw ServerError.invalidLimit("\(name) must be in (0, 86400], got \(seconds)")
            }

            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let state = self.state
            let bandwidth = configuration.bandwidthBytesPerSecond
            let maxConnections = configuration.maxConnections
            let requestTimeout = TimeAmount.nanoseconds(Int64(configuration.requestTimeoutSeconds * 1e9))
            let idleTimeout = TimeAmount.nanoseconds(Int64(configuration.idleTimeoutSeconds * 1e9))
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                // IPPROTO_TCP: at SOL_SOCKET level, option 1 is SO_DEBUG
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        guard state.openConnection(limit: maxConnections) else {
                            try pipeline.addHandler(RefuseConnection())
                            return
                        }
                        channel.closeFuture.whenComplete { _ in state.closeConnection() }
                        try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                        try pipeline.addHandler(
                            HTTPHandler(
                                state: state,
                                bandwidthBytesPerSecond: bandwidth,
                                requestTimeout: requestTimeout,
                                idleTimeout: idleTimeout
                            )
                        )
                    }
                }
            do {
                let channel = try bootstrap.bind(host: configuration.host, port: configuration.port).wait()
                lifecycle.group = group
                lifecycle.serverChannel = channel
                lifecycle.boundPort = channel.localAddress?.port ?? configuration.port
            } catch {
                try? group.syncShutdownGracefully()
                if let failure = error as? IOError {
                    throw ServerError.cannotListen(
                        host: configuration.host,
                        port: configuration.port,
                        errno: failure.errnoCode
                    )
                }
                throw error
            }
        }
    }

    /// The bound port (the configured one before `start()`).
    public var port: Int {
        lifecycle.withLock { $0.group == nil ? configuration.port : $0.boundPort }
    }

    /// `http://127.0.0.1:PORT` (an IPv6 host is bracketed).
    public var baseURL: URL {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "http://\(host):\(port)")!
    }

    public func url(for path: String) -> URL {
        URL(string: baseURL.absoluteString + LoopbackServer.normalized(path))!
    }

    /// The URL of `path` with the query that makes the server act out `fault`.
    package func url(for path: String, fault: ServerFault) -> URL {
        var components = URLComponents(url: url(for: path), resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + fault.queryItems
        return components.url!
    }

    /// Closes the listener and every open connection (keep-alive ones included), then stops
    /// the event-loop thread, without blocking a thread: for async callers. Idempotent.
    public func shutdownGracefully() async {
        let running = lifecycle.withLock { lifecycle -> (group: MultiThreadedEventLoopGroup, channel: Channel?)? in
            guard !lifecycle.isShutDown else { return nil }
            lifecycle.isShutDown = true
            defer {
                lifecycle.serverChannel = nil
                lifecycle.group = nil
            }
            return lifecycle.group.map { ($0, lifecycle.serverChannel) }
        }
        guard let running else { return }
        try? await running.channel?.close().get()
        // Shutting the group down closes the accepted channels still registered on it.
        try? await running.group.shutdownGracefully()
    }

    /// Closes the listener and every open connection (keep-alive ones included), then stops
    /// the event-loop thread. Idempotent; blocks until done. Must not be called on the loop
    /// (async callers: `shutdownGracefully()`).
    public func shutdown() {
        lifecycle.withLock { lifecycle in
            guard !lifecycle.isShutDown else { return }
            lifecycle.isShutDown = true
            guard let group = lifecycle.group else { return }
            try? lifecycle.serverChannel?.close().wait()
            // Shutting the group down closes the accepted channels still registered on it.
            try? group.syncShutdownGracefully()
            lifecycle.serverChannel = nil
            lifecycle.group = nil
        }
    }

    /// Requests received for `path` (any method; the query string is ignored).
    package func requestCount(path: String) -> Int {
        state.requestCount(path: LoopbackServer.normalized(path))
    }

    package var totalRequestCount: Int { state.totalRequestCount }

    /// Response body bytes handed to the channel, over all requests; headers excluded,
    /// HEAD counts 0, a truncate/reset fault counts only the bytes it sent.
    package var bytesSent: Int { state.bytesSent }

    /// Connections accepted so far: with keep-alive, several requests share one.
    package var connectionCount: Int { state.connectionCount }

    /// Connections open now.
    package var openConnectionCount: Int { state.openConnectionCount }

    /// Connections answered 503 and closed because `maxConnections` were open.
    package var refusedConnectionCount: Int { state.refusedConnectionCount }

    /// Connections closed because no complete request arrived in time.
    package var timedOutConnectionCount: Int { state.timedOutConnectionCount }

    /// Distinct paths the server keeps a request count for (bounded: servable paths plus
    /// at most `maxOtherPaths` others), and requests counted only in the shared bucket.
    package var countedPathCount: Int { state.countedPathCount }
    package var uncountedPathRequests: Int { state.uncountedPathRequests }
    package static var maxOtherPaths: Int { ServerState.maxOtherPaths }

    /// Zeroes the request, connection and byte counters (for example between benchmark runs).
    package func resetCounters() { state.resetCounters() }

    private static func normalized(_ path: String) -> String {
        path.hasPrefix("/") ? path : "/" + path
    }
}
