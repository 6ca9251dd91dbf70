import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

extension LoopbackServerTests {
    @Suite struct Lifecycle {
        @Test func shutdownWithAnIdleKeepAliveConnectionIsPrompt() async throws {
            let server = LoopbackServer()
            try server.start()
            let session = makeSession()
            let (data, _) = try await session.data(from: server.url(for: "/warmup"))
            #expect(data.count == 1024)  // the session now holds an idle keep-alive connection
            let (_, seconds) = await measure { server.shutdown() }
            #expect(seconds < 3, "shutdown took \(seconds) s")
            session.invalidateAndCancel()
        }

        @Test func shutdownClosesRawConnectionsThatSentNothing() async throws {
            let server = LoopbackServer()
            try server.start()
            let fd = try connectTCP(port: server.port)
            defer { close(fd) }
            try await Task.sleep(for: .milliseconds(50))  // let the server accept it
            let (_, seconds) = await measure { server.shutdown() }
            #expect(seconds < 3, "shutdown took \(seconds) s")
            var byte: UInt8 = 0
            #expect(read(fd, &byte, 1) <= 0, "the server side should be closed")  // EOF (or RST)
        }

        @Test func shutdownDuringASlowDownloadIsPrompt() async throws {
            let server = LoopbackServer(configuration: .init(bandwidthBytesPerSecond: 1_000_000))
            server.addResource(path: "/img", body: payload(count: 10_000_000))  // 10 s at this rate
            try server.start()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = [
                "--silent", "--max-time", "30", "--output", "/dev/null", server.url(for: "/img").absoluteString,
            ]
            try process.run()
            // Bounded wait until the body has started flowing.
            for _ in 0..<100 where server.bytesSent == 0 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(server.bytesSent > 0)
            let (_, seconds) = await measure { server.shutdown() }
            #expect(seconds < 3, "shutdown took \(seconds) s")
            process.waitUntilExit()
            #expect(process.terminationStatus != 0, "curl should see the connection cut")
            #expect(server.bytesSent < 10_000_000)
        }

        @Test func lifecycleMisuseIsHarmless() throws {
            let neverStarted = LoopbackServer()
            neverStarted.shutdown()
            neverStarted.shutdown()

            let server = LoopbackServer()
            try server.start()
            #expect(throws: LoopbackServer.ServerError.alreadyStarted) { try server.start() }
            server.shutdown()
            server.shutdown()  // idempotent
            #expect(throws: LoopbackServer.ServerError.alreadyShutDown) { try server.start() }
        }

        @Test func asyncShutdownClosesConnectionsAndIsIdempotent() async throws {
            let server = LoopbackServer()
            try server.start()
            let fd = try connectTCP(port: server.port)
            defer { close(fd) }
            try await Task.sleep(for: .milliseconds(50))  // let the server accept it
            await server.shutdownGracefully()
            var byte: UInt8 = 0
            #expect(read(fd, &byte, 1) <= 0, "the server side should be closed")  // EOF (or RST)
            await server.shutdownGracefully()
            server.shutdown()
            #expect(throws: LoopbackServer.ServerError.alreadyShutDown) { try server.start() }
        }

        /// Dropped without shutdown(), the server still stops (without blocking in deinit): its port frees up.
        @Test func aDroppedServerStopsListening() async throws {
            var server: LoopbackServer? = LoopbackServer()
            try server!.start()
            let port = server!.port
            server = nil
            var refused = false
            for _ in 0..<100 where !refused {
                if let fd = try? connectTCP(port: port) { close(fd) } else { refused = true }
                if !refused { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(refused, "port \(port) still accepts connections 5 s after the last reference went")
        }

        @Test func bindingABusyPortThrows() throws {
            let first = LoopbackServer()
            try first.start()
            defer { first.shutdown() }
            let second = LoopbackServer(configuration: .init(port: first.port))
            #expect(throws: (any Error).self) { try second.start() }
        }
    }
}

/// A plain blocking TCP connection to 127.0.0.1:`port`, with a 5 s receive timeout so a
/// read can never hang the test.
private func connectTCP(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard result == 0 else {
        close(fd)
        throw POSIXError(.init(rawValue: errno) ?? .ECONNREFUSED)
    }
    return fd
}
