import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client on 127.0.0.1 for requests curl will not send (slow headers, garbage,
/// pipelining). Every read waits at most `receiveTimeout` seconds, so no test can hang.
package final class RawSocket {
    package let descriptor: Int32

    package init(port: Int, receiveTimeout: Int = 10) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(.init(rawValue: code) ?? .ECONNREFUSED)
        }
    }

    deinit { close(descriptor) }

    /// Sends everything (or as much as the peer takes before it closes); false if it failed.
    @discardableResult
    package func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    @discardableResult
    package func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    /// Reads until the peer closes, the read times out, or `limit` bytes have come.
    package func readAll(limit: Int = 1 << 20) -> (data: Data, closedByPeer: Bool) {
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while result.count < limit {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return (result, true) }
            if count < 0 { return (result, errno == ECONNRESET) }
            result.append(contentsOf: buffer[0..<count])
        }
        return (result, false)
    }

    /// Reads one response's worth: until `marker` has been seen, the peer closes or times out.
    package func read(until marker: String, limit: Int = 1 << 20) -> String {
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while result.count < limit {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            result.append(contentsOf: buffer[0..<count])
            if String(decoding: result, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
