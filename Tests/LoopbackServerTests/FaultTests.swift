import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension LoopbackServerTests {
    @Suite struct Faults {
        static let size = 3 * 1024 * 1024
        static let body = payload(count: size)

        @Test func parsesEveryFault() throws {
            #expect(try ServerFault.parse(query: nil) == nil)
            #expect(try ServerFault.parse(query: "v=2") == nil)
            #expect(
                try ServerFault.parse(query: "fault=status&code=503&retryAfter=1") == .status(503, retryAfterSeconds: 1)
            )
            #expect(try ServerFault.parse(query: "fault=status&code=500") == .status(500))
            #expect(
                try ServerFault.parse(query: "fault=slowFirstByte&delayMs=500") == .slowFirstByte(milliseconds: 500)
            )
            #expect(try ServerFault.parse(query: "fault=truncate&afterBytes=10") == .truncate(afterBytes: 10))
            #expect(try ServerFault.parse(query: "afterBytes=7&fault=reset") == .reset(afterBytes: 7))
            #expect(try ServerFault.parse(query: "fault=chunked") == .chunked)
            #expect(throws: ServerFault.ParseError.self) { try ServerFault.parse(query: "fault=bogus") }
            #expect(throws: ServerFault.ParseError.self) { try ServerFault.parse(query: "fault=truncate") }
            #expect(throws: ServerFault.ParseError.self) { try ServerFault.parse(query: "fault=status&code=abc") }
        }

        @Test(arguments: [
            ServerFault.status(503, retryAfterSeconds: 2), .slowFirstByte(milliseconds: 5),
            .truncate(afterBytes: 1), .reset(afterBytes: 2), .chunked,
        ])
        func queryItemsRoundTrip(fault: ServerFault) throws {
            let query = fault.queryItems.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
            #expect(try ServerFault.parse(query: query) == fault)
        }

        @Test func unknownFaultIs400ListingTheValidOnes() async throws {
            try await withServer { server in
                let result = try curl(server.url(for: "/warmup?fault=explode"))
                #expect(result.statusCode == 400)
                let text = String(decoding: result.body, as: UTF8.self)
                for name in ServerFault.validNames { #expect(text.contains(name), "\(text)") }
            }
        }

        @Test func statusFaultSendsRetryAfter() async throws {
            try await withServer { server in
                server.addResource(path: "/img", body: Self.body)
                let result = try curl(server.url(for: "/img", fault: .status(503, retryAfterSeconds: 1)))
                #expect(result.statusCode == 503)
                #expect(result.header("Retry-After") == "1")
                #expect(result.body.count < 100)

                let (_, response) = try await makeSession().data(
                    from: server.url(for: "/img?fault=status&code=503&retryAfter=1")
                )
                let http = try #require(response as? HTTPURLResponse)
                #expect(http.statusCode == 503)
                #expect(http.value(forHTTPHeaderField: "Retry-After") == "1")
            }
        }

        @Test func slowFirstByteDelaysTheHead() async throws {
            try await withServer { server in
                server.addResource(path: "/img", body: Self.body)
                let result = try curl(server.url(for: "/img?fault=slowFirstByte&delayMs=500"))
                #expect(result.exitCode == 0, "\(result.stderr)")
                #expect(result.timeToFirstByte >= 0.49, "ttfb \(result.timeToFirstByte)")
                #expect(result.timeToFirstByte < 10)
                #expect(result.body == Self.body)

                let (data, seconds) = try await measure {
                    try await makeSession().data(
                        from: server.url(for: "/img", fault: .slowFirstByte(milliseconds: 300))
                    ).0
                }
                #expect(seconds >= 0.29, "took \(seconds)")
                #expect(data == Self.body)
            }
        }

        @Test func truncateAdvertisesFullLengthButSendsFewerBytes() async throws {
            try await withServer { server in
                server.addResource(path: "/img", body: Self.body)
                let result = try curl(server.url(for: "/img", fault: .truncate(afterBytes: 1_000_000)))
                #expect(result.exitCode == 18, "curl: \(result.stderr)")  // CURLE_PARTIAL_FILE
                #expect(result.header("Content-Length") == String(Self.size))
                #expect(result.body == Self.body.prefix(1_000_000))
                #expect(server.bytesSent == 1_000_000)

                // URLSession either fails or (never acceptable for the harness) returns short data.
                do {
                    let (data, _) = try await makeSession().data(
                        from: server.url(for: "/img?fault=truncate&afterBytes=1000")
                    )
                    #expect(data.count < Self.size)
                } catch {
                    // expected: the connection was lost mid-body
                }
            }
        }

        @Test func resetClosesWithRST() async throws {
            try await withServer { server in
                server.addResource(path: "/img", body: Self.body)
                let result = try curl(server.url(for: "/img", fault: .reset(afterBytes: 500_000)))
                // 56 = CURLE_RECV_ERROR ("Connection reset by peer"); 18 if the RST lost the race.
                #expect(result.exitCode == 56 || result.exitCode == 18, "curl: \(result.stderr)")
                // The server waits for the bytes to be acknowledged before the RST, so curl
                // normally has all 500 000; a busy client with a full window may get fewer.
                #expect(result.body.count <= 500_000)
                #expect(result.body == Self.body.prefix(result.body.count))

                await #expect(throws: (any Error).self) {
                    _ = try await makeSession().data(from: server.url(for: "/img?fault=reset&afterBytes=1000"))
                }
            }
        }

        @Test func chunkedHasNoContentLengthAndTheFullBody() async throws {
            try await withServer { server in
                server.addResource(path: "/img", body: Self.body)
                let result = try curl(server.url(for: "/img", fault: .chunked))
                #expect(result.exitCode == 0, "\(result.stderr)")
                #expect(result.header("Content-Length") == nil)
                #expect(result.header("Transfer-Encoding") == "chunked")
                #expect(result.body == Self.body)

                let (data, response) = try await makeSession().data(from: server.url(for: "/img?fault=chunked"))
                #expect((response as? HTTPURLResponse)?.expectedContentLength == -1)
                #expect(data == Self.body)
            }
        }

        @Test func connectionSurvivesFaultsThatEndTheMessage() async throws {
            try await withServer { server in
                server.addResource(path: "/img", body: Data("hello".utf8))
                let session = makeSession()
                _ = try await session.data(from: server.url(for: "/img", fault: .chunked))
                _ = try await session.data(from: server.url(for: "/img", fault: .status(500)))
                let (data, _) = try await session.data(from: server.url(for: "/img"))
                #expect(data == Data("hello".utf8))
                #expect(server.connectionCount == 1)
            }
        }
    }
}
