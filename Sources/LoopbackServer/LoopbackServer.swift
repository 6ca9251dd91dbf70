import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server on loopback that serves in-memory resources to the measured child
/// processes. It runs in the parent, on one event-loop thread, so it stays light on a
/// small machine and none of its memory is counted against a child.
///
/// Routes: every added resource (GET, HEAD), `/warmup` (1 KiB), `/status/<code>`; anything
/// else is 404. Any path accepts a `ServerFault` in its query string.
public final class LoopbackServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free ephemeral port; read it back from `port` after `start()`.
        public var port: Int
        /// Per-response pacing of body bytes; nil sends as fast as the socket takes them.
        public var bandwidthBytesPerSecond: Int?

        public init(host: String = "127.0.0.1", port: Int = 0, bandwidthBytesPerSecond: Int? = nil) {
            self.host = host
            self.port = port
            self.bandwidthBytesPerSecond = bandwidthBytesPerSecond
        }
    }

    public enum ServerError: Error, Equatable {
        case alreadyStarted
        case alreadyShutDown
        case invalidBandwidth(Int)
    }

    public let configuration: Configuration
    private let state = ServerState()
    // Guards the lifecycle fields below; held across start/shutdown so they never interleave.
    private let lock = NSLock()
    private var group: MultiThreadedEventLoopGroup?
    private var serverChannel: Channel?
    private var boundPort = 0
    private var isShutDown = false

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    deinit {
        shutdown()
    }

    /// Serves `body` at `path` (e.g. "/fixture.jpg"). The body is copied once into a
    /// ByteBuffer here; requests share that buffer. Replaces an earlier resource at `path`.
    public func addResource(path: String, body: Data, contentType: String = "application/octet-stream") {
        var buffer = ByteBufferAllocator().buffer(capacity: body.count)
        _ = body.withUnsafeBytes { buffer.writeBytes($0) }
        state.setResource(Resource(body: buffer, contentType: contentType), for: LoopbackServer.normalized(path))
    }

    /// Binds and returns once the server is listening.
    public func start() throws {
        try lock.withLock {
            guard !isShutDown else { throw ServerError.alreadyShutDown }
            guard group == nil else { throw ServerError.alreadyStarted }
            if let rate = configuration.bandwidthBytesPerSecond, rate <= 0 {
                throw ServerError.invalidBandwidth(rate)
            }

            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let state = self.state
            let bandwidth = configuration.bandwidthBytesPerSecond
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                        try pipeline.addHandler(HTTPHandler(state: state, bandwidthBytesPerSecond: bandwidth))
                    }
                }
            do {
                let channel = try bootstrap.bind(host: configuration.host, port: configuration.port).wait()
                self.group = group
                self.serverChannel = channel
                self.boundPort = channel.localAddress?.port ?? configuration.port
            } catch {
                try? group.syncShutdownGracefully()
                throw error
            }
        }
    }

    /// The bound port (the configured one before `start()`).
    public var port: Int {
        lock.withLock { group == nil ? configuration.port : boundPort }
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
    public func url(for path: String, fault: ServerFault) -> URL {
        var components = URLComponents(url: url(for: path), resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + fault.queryItems
        return components.url!
    }

    /// Closes the listener and every open connection (keep-alive ones included), then stops
    /// the event-loop thread. Idempotent; blocks until done. Must not be called on the loop.
    public func shutdown() {
        lock.withLock {
            guard !isShutDown else { return }
            isShutDown = true
            guard let group else { return }
            try? serverChannel?.close().wait()
            // Shutting the group down closes the accepted channels still registered on it.
            try? group.syncShutdownGracefully()
            self.serverChannel = nil
            self.group = nil
        }
    }

    /// Requests received for `path` (any method; the query string is ignored).
    public func requestCount(path: String) -> Int {
        state.requestCount(path: LoopbackServer.normalized(path))
    }

    public var totalRequestCount: Int { state.totalRequestCount }

    /// Response body bytes handed to the channel, over all requests; headers excluded,
    /// HEAD counts 0, a truncate/reset fault counts only the bytes it sent.
    public var bytesSent: Int { state.bytesSent }

    /// Connections accepted so far: with keep-alive, several requests share one.
    public var connectionCount: Int { state.connectionCount }

    /// Zeroes the request, connection and byte counters (for example between benchmark runs).
    public func resetCounters() { state.resetCounters() }

    private static func normalized(_ path: String) -> String {
        path.hasPrefix("/") ? path : "/" + path
    }
}
