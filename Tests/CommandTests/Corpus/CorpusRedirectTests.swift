import Foundation
import Synchronization
import TestSupport
import Testing

/// A corpus URL list holds loopback URLs only; a loopback server that answers with a redirect off
/// loopback must not take bench there. The redirect is refused (a fetch_error row naming it) before
/// any connection to the other host: 192.0.2.1 is TEST-NET-1, never reachable.
@Suite(.serialized) struct CorpusRedirectTests {
    @Test func aRedirectOffLoopbackIsRefusedAndNamed() throws {
        let server = try RedirectingServer(location: "http://192.0.2.1/x")
        defer { server.stop() }
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("urls.txt")
        try Data("http://127.0.0.1:\(server.port)/away.jpg\n".utf8).write(to: list)
        let out = folder.appendingPathComponent("out")
        let output = try BenchProcess.run(
            ["corpus", list.path, "--render", "none", "--runs", "1", "--out", out.path],
            timeout: 120
        )
        #expect(output.status == 3, "\(output.standardError)")
        let rows = try JobsTests.rows(out, file: "corpus.csv")
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row["status"] == "fetch_error", "\(row)")
        #expect(row["error"]?.contains("refused a redirect to http://192.0.2.1/x") == true, "\(row)")
        #expect(row["error"]?.contains("loopback") == true, "\(row)")
        #expect(
            server.requests >= 1 && server.requests <= 2,
            "the parent asked the loopback server, and no child did: \(server.requests)"
        )
    }
}

/// Answers every request with 302 and `location`, then closes: a hostile server on loopback.
final class RedirectingServer: Sendable {
    let port: Int
    private let listener: Int32
    private let count = Mutex(0)
    var requests: Int { count.withLock { $0 } }

    struct SetUpFailed: Error {}

    init(location: String) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 8) == 0 else { throw SetUpFailed() }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let answer = "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }  // closed by stop()
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(connection, &buffer, buffer.count)
                count.withLock { $0 += 1 }
                _ = answer.withCString { write(connection, $0, strlen($0)) }
                close(connection)
            }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
