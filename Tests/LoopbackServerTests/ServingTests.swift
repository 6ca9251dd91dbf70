import Foundation
import LoopbackServer
import Testing

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension LoopbackServerTests {
    @Suite struct Serving {
        static let fixtureSize = 13 * 1024 * 1024
        static let fixture = payload(count: fixtureSize)

        @Test func largeResourceDownloadsByteIdenticalOverURLSession() async throws {
            try await withServer { server in
                server.addResource(path: "/fixture.jpg", body: Self.fixture, contentType: "image/jpeg")
                let (data, response) = try await makeSession().data(from: server.url(for: "/fixture.jpg"))
                let http = try #require(response as? HTTPURLResponse)
                #expect(http.statusCode == 200)
                #expect(http.value(forHTTPHeaderField: "Content-Length") == String(Self.fixtureSize))
                #expect(http.value(forHTTPHeaderField: "Content-Type") == "image/jpeg")
                #expect(data.count == Self.fixtureSize)
                #expect(data == Self.fixture)
                #expect(server.bytesSent == Self.fixtureSize)
            }
        }

        @Test func largeResourceDownloadsByteIdenticalOverCurl() async throws {
            try await withServer { server in
                server.addResource(path: "/fixture.jpg", body: Self.fixture)
                let result = try curl(server.url(for: "/fixture.jpg"))
                #expect(result.exitCode == 0, "\(result.stderr)")
                #expect(result.statusCode == 200)
                #expect(result.header("Content-Length") == String(Self.fixtureSize))
                #expect(result.body == Self.fixture)
            }
        }

        @Test func headHasContentLengthAndNoBody() async throws {
            try await withServer { server in
                server.addResource(path: "/fixture.jpg", body: Self.fixture, contentType: "image/jpeg")
                let result = try curl(server.url(for: "/fixture.jpg"), ["--head"])
                #expect(result.exitCode == 0, "\(result.stderr)")
                #expect(result.statusCode == 200)
                #expect(result.header("Content-Length") == String(Self.fixtureSize))
                #expect(result.bodySize == 0)

                var request = URLRequest(url: server.url(for: "/fixture.jpg"))
                request.httpMethod = "HEAD"
                let (data, response) = try await makeSession().data(for: request)
                let http = try #require(response as? HTTPURLResponse)
                #expect(http.statusCode == 200)
                #expect(http.expectedContentLength == Int64(Self.fixtureSize))
                #expect(data.isEmpty)
                #expect(server.bytesSent == 0)
                #expect(server.requestCount(path: "/fixture.jpg") == 2)
            }
        }

        @Test func unknownPathIs404WithShortText() async throws {
            try await withServer { server in
                let result = try curl(server.url(for: "/nope"))
                #expect(result.statusCode == 404)
                #expect(String(decoding: result.body, as: UTF8.self).contains("not found"))
                #expect(result.header("Content-Length") == String(result.body.count))
                #expect(server.requestCount(path: "/nope") == 1)
            }
        }

        @Test(arguments: [500, 404, 204, 302])
        func statusRouteAnswersWithThatStatus(code: Int) async throws {
            try await withServer { server in
                let result = try curl(server.url(for: "/status/\(code)"))
                #expect(result.exitCode == 0, "\(result.stderr)")
                #expect(result.statusCode == code)
                if code == 204 { #expect(result.body.isEmpty) } else { #expect(!result.body.isEmpty) }
            }
        }

        @Test func warmupIsOneKibibyte() async throws {
            try await withServer { server in
                let (data, response) = try await makeSession().data(from: server.url(for: "/warmup"))
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                #expect(data.count == 1024)
            }
        }

        @Test func otherMethodsAre405() async throws {
            try await withServer { server in
                server.addResource(path: "/a", body: Data("abc".utf8))
                let result = try curl(server.url(for: "/a"), ["--request", "POST", "--data", "x"])
                #expect(result.statusCode == 405)
                #expect(result.header("Allow") == "GET, HEAD")
            }
        }

        @Test func keepAliveReusesOneConnectionForTwoRequests() async throws {
            try await withServer { server in
                server.addResource(path: "/a", body: payload(count: 100_000))
                let session = makeSession()
                let (first, _) = try await session.data(from: server.url(for: "/a"))
                let (second, _) = try await session.data(from: server.url(for: "/a?again"))
                #expect(first.count == 100_000 && second == first)
                #expect(server.requestCount(path: "/a") == 2)
                #expect(server.totalRequestCount == 2)
                #expect(server.connectionCount == 1)
            }
        }

        @Test func curlReusesTheConnectionToo() async throws {
            try await withServer { server in
                server.addResource(path: "/a", body: payload(count: 1000))
                // Two URLs in one curl run share a connection when the server keeps it alive.
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                let url = server.url(for: "/a").absoluteString
                process.arguments = [
                    "--silent", "--max-time", "20", "--output", "/dev/null",
                    "--output", "/dev/null", url, url,
                ]
                try process.run()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0)
                #expect(server.requestCount(path: "/a") == 2)
                #expect(server.connectionCount == 1)
            }
        }

        @Test func http10WithoutKeepAliveIsAnsweredAndClosed() async throws {
            try await withServer { server in
                let result = try curl(server.url(for: "/warmup"), ["--http1.0"])
                #expect(result.exitCode == 0, "\(result.stderr)")
                #expect(result.bodySize == 1024)
                #expect(result.header("Connection")?.lowercased() == "close")
            }
        }

        @Test func servingABodyManyTimesDoesNotCopyIt() async throws {
            try await withServer { server in
                let size = 32 * 1024 * 1024
                server.addResource(path: "/big", body: payload(count: size))
                let before = residentBytes()
                for _ in 0..<4 {
                    let result = try curl(server.url(for: "/big"), keepBody: false)
                    #expect(result.exitCode == 0 && result.bodySize == size)
                }
                // A copy per request would add 32 MB each time; slices of one buffer add nothing.
                let growth = residentBytes() - before
                #expect(growth < size / 2, "RSS grew by \(growth) bytes")
            }
        }

        @Test func countersTrackRequestsAndBodyBytes() async throws {
            try await withServer { server in
                server.addResource(path: "/a", body: payload(count: 5000))
                server.addResource(path: "b", body: payload(count: 300))  // leading slash is added
                _ = try curl(server.url(for: "/a"))
                _ = try curl(server.url(for: "/a?cacheBuster=1"))
                _ = try curl(server.url(for: "/b"), ["--head"])
                _ = try curl(server.url(for: "/warmup"))
                #expect(server.requestCount(path: "/a") == 2)
                #expect(server.requestCount(path: "/b") == 1)
                #expect(server.requestCount(path: "/warmup") == 1)
                #expect(server.requestCount(path: "/never") == 0)
                #expect(server.totalRequestCount == 4)
                #expect(server.bytesSent == 2 * 5000 + 1024)

                server.resetCounters()
                #expect(server.totalRequestCount == 0 && server.bytesSent == 0)
            }
        }

        @Test func resourcesCanBeAddedAfterStartAndReplaced() async throws {
            try await withServer { server in
                let before = try curl(server.url(for: "/late"))
                #expect(before.statusCode == 404)
                server.addResource(path: "/late", body: Data("one".utf8))
                let first = try curl(server.url(for: "/late"))
                #expect(first.body == Data("one".utf8))
                server.addResource(path: "/late", body: Data("two!".utf8))
                let second = try curl(server.url(for: "/late"))
                #expect(second.body == Data("two!".utf8))
            }
        }

        @Test func urlsAndPort() async throws {
            try await withServer { server in
                #expect(server.port > 0)
                #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
                #expect(server.url(for: "x.jpg").absoluteString == "http://127.0.0.1:\(server.port)/x.jpg")
                #expect(
                    server.url(for: "/x.jpg", fault: .truncate(afterBytes: 10)).absoluteString
                        == "http://127.0.0.1:\(server.port)/x.jpg?fault=truncate&afterBytes=10"
                )
            }
        }

        /// Whether this machine can listen on ::1 at all; without it the test is reported as skipped.
        static let ipv6LoopbackAvailable: Bool = {
            let probe = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            guard probe >= 0 else { return false }
            defer { close(probe) }
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
                }
            }
        }()

        @Test(.enabled(if: ipv6LoopbackAvailable, "skipped: this machine has no IPv6 loopback (::1)"))
        func servesOnIPv6LoopbackToo() async throws {
            let server = LoopbackServer(configuration: .init(host: "::1"))
            try server.start()
            defer { server.shutdown() }
            #expect(server.baseURL.absoluteString == "http://[::1]:\(server.port)")
            let result = try curl(server.url(for: "/warmup"))
            #expect(result.bodySize == 1024)
        }
    }
}
