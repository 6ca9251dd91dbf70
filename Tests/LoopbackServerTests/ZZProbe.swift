import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing

@Test func zzProbe() async throws {
    for (rate, size) in [(8_000_000, 2_000_000), (12_000_000, 6_000_000), (100_000, 40_000), (50_000_000, 32_000_000)] {
        try await withServer(.init(bandwidthBytesPerSecond: rate)) { server in
            server.addResource(path: "/img", body: payload(count: size))
            let r = try curl(server.url(for: "/img"))
            print("PROBE rate \(rate) size \(size) expected \(Double(size)/Double(rate)) ttfb \(r.timeToFirstByte) total \(r.totalTime) bytes \(r.bodySize)")
        }
    }
    try await withServer { server in
        server.addResource(path: "/img", body: payload(count: 3_000_000))
        for q in ["fault=reset&afterBytes=500000", "fault=reset&afterBytes=0", "fault=truncate&afterBytes=1000"] {
            let r = try curl(server.url(for: "/img?" + q))
            print("PROBE curl \(q): exit \(r.exitCode) bytes \(r.body.count) \(r.stderr)")
            do {
                let (d, resp) = try await makeSession().data(from: server.url(for: "/img?" + q))
                print("PROBE URLSession \(q): NO ERROR count \(d.count) \(resp)")
            } catch { print("PROBE URLSession \(q): error \(error)") }
        }
        let (d, secs) = try await measure { try await makeSession().data(from: server.url(for: "/img")).0 }
        print("PROBE unthrottled 3MB URLSession \(secs) \(d.count)")
    }
}
