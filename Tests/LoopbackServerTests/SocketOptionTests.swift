import Foundation
import Glibc
import LoopbackServer
import TestSupport
import Testing

/// `.socketOption(.tcp_nodelay)` is SOL_SOCKET level: option 1 there is SO_DEBUG, which needs
/// CAP_NET_ADMIN. As root it was set silently (and TCP_NODELAY never was); as any other user the
/// setsockopt failed and NIO closed every accepted connection, so no trial could fetch anything.
@Suite struct SocketOptionTests {
    /// The server's end of a connection from `clientPort`, found among this process's descriptors.
    static func acceptedDescriptor(serverPort: Int, clientPort: Int) -> Int32? {
        for fd in Int32(3)..<Int32(4096) {
            var local = sockaddr_in()
            var peer = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let gotLocal = withUnsafeMutablePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard gotLocal == 0, local.sin_family == sa_family_t(AF_INET),
                Int(UInt16(bigEndian: local.sin_port)) == serverPort
            else { continue }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let gotPeer = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
            }
            if gotPeer == 0 && Int(UInt16(bigEndian: peer.sin_port)) == clientPort { return fd }
        }
        return nil
    }

    static func option(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, level, name, &value, &length) == 0 ? value : -1
    }

    @Test func acceptedConnectionsHaveTCPNoDelayAndNotSODebug() throws {
        let server = LoopbackServer()
        try server.start()
        defer { server.shutdown() }
        let client = try RawSocket(port: server.port)
        #expect(client.send("GET /warmup HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        _ = client.read(until: "\r\n\r\n")
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client.descriptor, $0, &length) }
        }
        let accepted = try #require(
            Self.acceptedDescriptor(serverPort: server.port, clientPort: Int(UInt16(bigEndian: local.sin_port)))
        )
        #expect(Self.option(accepted, Int32(IPPROTO_TCP), TCP_NODELAY) != 0, "TCP_NODELAY is set on the server's end")
        #expect(Self.option(accepted, SOL_SOCKET, SO_DEBUG) == 0, "SO_DEBUG (needs CAP_NET_ADMIN) is not set")
    }
}
