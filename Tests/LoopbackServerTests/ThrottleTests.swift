import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension LoopbackServerTests {
    @Suite struct Throttling {
        @Test func twoMegabytesAtEightMegabytesPerSecondTakesAQuarterSecond() async throws {
            let size = 2_000_000
            let rate = 8_000_000
            let expected = Double(size) / Double(rate)  // 0.25 s
            try await withServer(.init(bandwidthBytesPerSecond: rate)) { server in
                let body = payload(count: size)
                server.addResource(path: "/img", body: body)
                let (data, seconds) = try await measure {
                    try await makeSession().data(from: server.url(for: "/img")).0
                }
                #expect(data == body)
                // The last byte may not leave before size / rate: a hard lower bound.
                #expect(seconds >= expected * 0.97, "took \(seconds) s")
                #expect(seconds < expected + 5, "took \(seconds) s")
            }
        }

        @Test func averageRateOfAMultiMegabyteBodyIsClose() async throws {
            let size = 6_000_000
            let rate = 12_000_000
            let expected = Double(size) / Double(rate)  // 0.5 s
            try await withServer(.init(bandwidthBytesPerSecond: rate)) { server in
                server.addResource(path: "/img", body: payload(count: size))
                let result = try curl(server.url(for: "/img"))
                #expect(result.bodySize == size)
                let transfer = result.totalTime
                #expect(transfer >= expected * 0.97, "took \(transfer) s")
                // Generous: a loaded machine only makes it slower, never faster.
                #expect(transfer < expected * 3, "took \(transfer) s")
            }
        }

        @Test func slowRateUsesSmallPieces() async throws {
            // 40 KB at 100 KB/s: 1 KiB pieces every ~10 ms, about 0.4 s.
            try await withServer(.init(bandwidthBytesPerSecond: 100_000)) { server in
                server.addResource(path: "/small", body: payload(count: 40_000))
                let result = try curl(server.url(for: "/small"))
                #expect(result.bodySize == 40_000)
                #expect(result.totalTime >= 0.38, "took \(result.totalTime) s")
                #expect(result.totalTime < 5)
            }
        }

        @Test func invalidBandwidthIsRejected() {
            let server = LoopbackServer(configuration: .init(bandwidthBytesPerSecond: 0))
            #expect(throws: LoopbackServer.ServerError.invalidBandwidth(0)) { try server.start() }
        }
    }
}
