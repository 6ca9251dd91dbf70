import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession the built-in URLSession strategies share. As shipped it is `URLSession.shared`,
/// whose configuration allows `httpMaximumConnectionsPerHost` (6 on Linux) connections to one host:
/// FoundationNetworking passes it to libcurl's multi handle (CURLMOPT_MAX_HOST_CONNECTIONS), and the
/// other requests to that host wait in libcurl's queue. A server that keeps C fetches in flight
/// raises the cap to C once, before its window (`--client-cap`), so that the cap it measures is the
/// one it states. A user's strategy that calls `URLSession.shared` itself keeps the shipped cap.
package enum StrategySession {
    private static let raised = Mutex<URLSession?>(nil)

    /// Connections to one host `URLSession.shared` allows.
    package static var shippedConnectionsPerHost: Int {
        URLSessionConfiguration.default.httpMaximumConnectionsPerHost
    }

    /// The session the built-in URLSession strategies use now.
    package static var current: URLSession {
        raised.withLock { $0 } ?? URLSession.shared
    }

    /// Connections to one host the current session allows.
    package static var connectionsPerHost: Int {
        // Read without making `URLSession.shared`, whose configuration is `.default`'s.
        raised.withLock { $0?.configuration.httpMaximumConnectionsPerHost }
            ?? shippedConnectionsPerHost
    }

    /// From now on the built-in strategies share a session allowing `cap` connections to one host;
    /// otherwise configured as `URLSession.shared` is (`URLSessionConfiguration.default`).
    package static func raiseConnectionsPerHost(to cap: Int) {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = max(1, cap)
        let session = URLSession(configuration: configuration)
        raised.withLock { $0 = session }
    }
}
