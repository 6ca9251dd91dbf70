import Foundation
import LoopbackServer
import TestSupport
import Testing

/// Clients that misbehave on purpose: no request may stop the server, hold it forever or
/// grow its memory without bound. Everything stays on 127.0.0.1 with bounded loops.
extension LoopbackServerTests {
    @Suite struct HostilePeers {
        /// Requests that once killed the process (NIO traps on `.end` after a 1xx head) or that
        /// the server cannot honour: each gets a 400 (or a well-formed answer) and the server lives.
        @Test(arguments: [
            "fault=status&code=100", "fault=status&code=101", "fault=status&code=103",
            "fault=status&code=199", "fault=status&code=99", "fault=status&code=600",
            "fault=status&code=99999999999999999999999", "fault=status&code=-1",
            "fault=slowFirstByte&delayMs=99999999999999", "fault=truncate&afterBytes=-5",
            "fault=redirect&hops=1000000", "fault=%ZZ", "fault",
        ])
        func unhonourableFaultsAre400(query: String) async throws {
            try await withServer { server in
                server.addResource(path: "/img", body: payload(count: 1000))
                let result = try curl(URL(string: server.url(for: "/img").absoluteString + "?" + query)!)
                #expect(result.statusCode == 400, "\(query): \(result.statusCode) \(result.stderr)")
                #expect(try curl(server.url(for: "/warmup")).statusCode == 200, "server still answers after \(query)")
            }
        }

        @Test(arguments: [204, 304, 200, 599])
        func bodilessStatusesAreWellFormed(code: Int) async throws {
            try await withServer { server in
                server.addResource(path: "/img", body: payload(count: 1000))
                for (method, arguments) in [("GET", [String]()), ("HEAD", ["--head"])] {
                    let result = try curl(server.url(for: "/img", fault: .status(code)), arguments, maxTime: 10)
                    #expect(result.statusCode == code, "\(method) \(code): \(result.stderr)")
                    #expect(result.exitCode == 0, "\(method) \(code): \(result.stderr)")
                }
                #expect(try curl(server.url(for: "/warmup")).statusCode == 200)
            }
        }

        /// HEAD with every fault, malformed request lines, huge headers, pipelining, bodies.
        @Test func oddRequestsNeitherCrashNorWedgeTheServer() async throws {
            try await withServer(.init(requestTimeoutSeconds: 0.5, idleTimeoutSeconds: 0.5)) { server in
                server.addResource(path: "/img", body: payload(count: 200_000))
                let port = server.port
                for fault in [
                    "truncate&afterBytes=10", "reset&afterBytes=10", "chunked", "redirect",
                    "slowFirstByte&delayMs=10", "status&code=204", "status&code=304",
                ] {
                    let socket = try RawSocket(port: port)
                    socket.send(
                        "HEAD /img?fault=\(fault) HTTP/1.1\r\nHost: x\r\n\r\nGET /warmup HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    )
                    let text = String(decoding: socket.readAll().data, as: UTF8.self)
                    #expect(text.hasPrefix("HTTP/1.1 "), "HEAD \(fault): \(text.prefix(200))")
                }
                let garbage = [
                    "GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "\u{0}\u{1}\u{2}\r\n\r\n",
                    "GET /img HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
                    "GET /img HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                    "GET /img HTTP/1.1\r\n"
                        + String(repeating: "X-Big: " + String(repeating: "a", count: 8000) + "\r\n", count: 20)
                        + "\r\n",
                    "GET /" + String(repeating: "a", count: 200_000) + " HTTP/1.1\r\n\r\n",
                    "POST /img HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
                    "GET /img?fault=reset&afterBytes=0 HTTP/1.1\r\nHost: x\r\n\r\n"
                        + String(repeating: "GET /img HTTP/1.1\r\nHost: x\r\n\r\n", count: 50),
                ]
                for request in garbage {
                    let socket = try RawSocket(port: port)
                    socket.send(request)
                    _ = socket.readAll(limit: 64 << 20)
                }
                // 100 pipelined requests on one connection are all answered, in order.
                let pipelined = try RawSocket(port: port)
                pipelined.send(
                    String(repeating: "GET /warmup HTTP/1.1\r\nHost: x\r\n\r\n", count: 99)
                        + "GET /warmup HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                )
                let answers = String(decoding: pipelined.readAll(limit: 64 << 20).data, as: UTF8.self)
                #expect(answers.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 100)
                let after = try curl(server.url(for: "/img"))
                #expect(after.statusCode == 200 && after.body.count == 200_000)
            }
        }

        /// Slowloris: connections that trickle header bytes are closed after the request
        /// timeout; meanwhile (and after) a normal client is served.
        @Test func slowHeaderConnectionsAreClosedWhileOthersAreServed() async throws {
            try await withServer(.init(maxConnections: 64, requestTimeoutSeconds: 0.5, idleTimeoutSeconds: 0.5)) {
                server in
                let slow = try (0..<20).map { _ in try RawSocket(port: server.port) }
                for socket in slow { socket.send("GET /warmup HTTP/1.1\r\nX-Slow: ") }
                #expect(try curl(server.url(for: "/warmup")).statusCode == 200, "served while 20 slow clients wait")
                for socket in slow {
                    socket.send("a")  // still trickling
                    let (data, closed) = socket.readAll()  // returns when the server closes (or after 10 s)
                    #expect(closed, "the server closed the slow connection")
                    #expect(data.isEmpty, "without an answer: the request never completed")
                }
                #expect(server.timedOutConnectionCount >= 20)
                #expect(try curl(server.url(for: "/warmup")).statusCode == 200)

                // A kept-alive connection that goes quiet is closed too.
                let idle = try RawSocket(port: server.port)
                idle.send("GET /warmup HTTP/1.1\r\nHost: x\r\n\r\n")
                let (answer, closed) = idle.readAll()
                #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
                #expect(closed, "the idle keep-alive connection was closed")
            }
        }

        /// Past the cap, new connections get a 503 at once instead of hanging; when the
        /// hogs go, clients are served again.
        @Test func connectionsOverTheCapAreRefusedNotHung() async throws {
            try await withServer(.init(maxConnections: 8, requestTimeoutSeconds: 60)) { server in
                do {
                    // Open until the end of this block: an optimized build may release an object after its last use.
                    let hogs = try (0..<8).map { _ in try RawSocket(port: server.port) }
                    try withExtendedLifetime(hogs) {
                        try waitUntil { server.openConnectionCount == 8 }
                        let refused = try curl(server.url(for: "/warmup"), maxTime: 10)
                        #expect(refused.statusCode == 503, "\(refused.stderr)")
                        #expect(String(decoding: refused.body, as: UTF8.self).contains("too many open connections"))
                        #expect(server.refusedConnectionCount >= 1)
                    }
                }
                try waitUntil { server.openConnectionCount == 0 }
                #expect(try curl(server.url(for: "/warmup")).statusCode == 200)
            }
        }

        /// 5,000 distinct unknown paths: the per-path bookkeeping stops at its bound.
        @Test func manyDistinctPathsDoNotGrowTheBookkeeping() async throws {
            try await withServer { server in
                server.addResource(path: "/img", body: payload(count: 10))
                let socket = try RawSocket(port: server.port)
                let count = 5000
                var requests = ""
                for n in 0..<count {
                    requests += "HEAD /unknown/\(n)-\(String(repeating: "p", count: 100)) HTTP/1.1\r\nHost: x\r\n\r\n"
                }
                requests += "GET /img HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                socket.send(requests)
                let answers = String(decoding: socket.readAll(limit: 64 << 20).data, as: UTF8.self)
                #expect(answers.components(separatedBy: "HTTP/1.1 404").count - 1 == count)
                #expect(server.totalRequestCount == count + 1)
                #expect(
                    server.countedPathCount <= LoopbackServer.maxOtherPaths + 1,
                    "bounded: \(server.countedPathCount)"
                )
                #expect(server.uncountedPathRequests == count - LoopbackServer.maxOtherPaths)
                #expect(server.requestCount(path: "/img") == 1, "servable paths are always counted")
            }
        }

        @Test func redirectFaultHopsThenServesAndLoopsWhenAsked() async throws {
            try await withServer { server in
                let body = payload(count: 5000)
                server.addResource(path: "/row/img.jpg", body: body)
                let hops = try curl(server.url(for: "/row/img.jpg", fault: .redirect(hops: 3)), ["--location"])
                #expect(hops.statusCode == 200 && hops.body == body, "\(hops.stderr)")
                #expect(server.requestCount(path: "/row/img.jpg") == 4)
                server.resetCounters()
                let loop = try curl(
                    server.url(for: "/row/img.jpg", fault: .redirect()),
                    ["--location", "--max-redirs", "20"]
                )
                #expect(loop.exitCode == 47, "CURLE_TOO_MANY_REDIRECTS: \(loop.stderr)")
                #expect(server.requestCount(path: "/row/img.jpg") == 21)
            }
        }

        @Test func aResourceFamilySharesItsBodies() async throws {
            try await withServer { server in
                let bodies = [payload(count: 1000, seed: 1), payload(count: 2000, seed: 2)]
                server.addResourceFamily(prefix: "/row/", suffix: ".jpg", count: 10_000, bodies: bodies)
                let first = try curl(server.url(for: "/row/0.jpg"))
                let last = try curl(server.url(for: "/row/9999.jpg"))
                #expect(first.body == bodies[0])
                #expect(last.body == bodies[1])
                for path in ["/row/10000.jpg", "/row/01.jpg", "/row/-1.jpg", "/row/.jpg", "/row/1x.jpg"] {
                    let result = try curl(server.url(for: path))
                    #expect(result.statusCode == 404, "\(path)")
                }
                #expect(server.requestCount(path: "/row/9999.jpg") == 1)
            }
        }
    }
}

/// Polls `condition` every 10 ms for at most 10 s (bounded; not a timing assertion).
func waitUntil(_ condition: () -> Bool) throws {
    for _ in 0..<1000 {
        if condition() { return }
        usleep(10_000)
    }
    struct Timeout: Error {}
    throw Timeout()
}
