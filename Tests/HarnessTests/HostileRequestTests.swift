import Foundation
import TestSupport
import Testing

/// No request may stop the server: the requests that once killed `bench serve` (and any
/// `bench run` hosting the same server) with SIGILL get a 400, and the process serves on.
@Suite struct HostileRequestTests {
    @Test func requestsThatCrashedTheServerGet400AndItServesOn() throws {
        let cache = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let server = try ServeProcess([
            "--width", "64", "--height", "48", "--fixture-cache", cache.path,
            "--seconds", "300",
        ])
        #expect(try server.curl("/fixture.jpg") == 200)
        for query in [
            "fault=status&code=100", "fault=status&code=101", "fault=status&code=199",
            "fault=status&code=1e3", "fault=status&code=99999999999999999999",
        ] {
            #expect(try server.curl("/fixture.jpg?\(query)") == 400, "\(query)")
            #expect(try server.curl("/fixture.jpg?\(query)", ["--head"]) == 400, "HEAD \(query)")
            #expect(server.process.isRunning, "bench serve died on \(query)")
            #expect(try server.curl("/warmup") == 200, "still serving after \(query)")
        }
        for (query, status) in [
            ("fault=status&code=204", 204), ("fault=status&code=304", 304),
            ("fault=redirect&hops=1", 302), ("fault=truncate&afterBytes=1", 200),
        ] {
            #expect(try server.curl("/fixture.jpg?\(query)", ["--head"]) == status, "HEAD \(query)")
            #expect(try server.curl("/fixture.jpg?\(query)") == status, "\(query)")
        }
        #expect(try server.curl("/status/100") == 400)
        // A reset with requests pipelined behind it: NIO released them as the connection
        // closed, the handler answered one after the unterminated response: SIGILL.
        for fault in ["reset&afterBytes=0", "truncate&afterBytes=0", "reset&afterBytes=100"] {
            let socket = try RawSocket(port: server.port)
            socket.send(
                "GET /fixture.jpg?fault=\(fault) HTTP/1.1\r\nHost: x\r\n\r\n"
                    + String(repeating: "GET /fixture.jpg HTTP/1.1\r\nHost: x\r\n\r\n", count: 50)
            )
            _ = socket.readAll()
            #expect(server.process.isRunning, "bench serve died on \(fault) with pipelined requests")
            #expect(try server.curl("/warmup") == 200, "still serving after \(fault) with pipelined requests")
        }
        #expect(try server.curl("/fixture.jpg") == 200)
        #expect(server.process.isRunning, "bench serve is still up after every request")
    }
}
