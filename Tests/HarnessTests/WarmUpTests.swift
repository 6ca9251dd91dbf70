import BenchCore
import Foundation
import Imaging
import LoopbackServer
import Report
import TestSupport
import Testing

/// `bench run --url` warms each child up against the measured server's own origin by default (its
/// root; an HTTP error there still sets up the session and the connection), says so, and records it
/// in `warmed_up`; `--cold` measures the first request of a fresh process on purpose.
@Suite(.serialized) struct WarmUpTests {
    static let runs = 2

    /// Runs `bench run --url <server>/image.jpg` with `extra` options; returns the output, the
    /// warmed_up column of every row and the requests the server saw for its root.
    func run(
        _ extra: [String],
        strategies: [String] = ["download"]
    ) throws -> (output: BenchProcess.Output, warmedUp: [String], rootRequests: Int) {
        let server = LoopbackServer()
        server.addResource(
            path: "/image.jpg",
            body: try FixtureGenerator.makeJPEG(FixtureSpec(width: 640, height: 480)),
            contentType: "image/jpeg"
        )
        try server.start()
        defer { server.shutdown() }
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run(
            ["--url", server.url(for: "/image.jpg").absoluteString]
                + strategies.flatMap { ["--strategy", $0] }
                + [
                    "--render", "none", "--allocator", "system", "--runs", String(Self.runs),
                    "--out", folder.path,
                ] + extra
        )
        let rows = try CSV.parse(String(contentsOf: folder.appendingPathComponent("trials.csv"), encoding: .utf8))
        let column = try #require(rows.first?.firstIndex(of: "warmed_up"), "trials.csv has a warmed_up column")
        return (output, rows.dropFirst().map { $0[column] }, server.requestCount(path: "/"))
    }

    @Test func anExternalURLIsWarmedUpOnItsOwnOriginByDefault() throws {
        let (output, warmedUp, rootRequests) = try run([])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardError.contains("warm-up: each child fetches http://127.0.0.1:"))
        #expect(warmedUp == Array(repeating: "1", count: Self.runs))
        // One warm-up per child, on the root of the measured origin (which answers 404 here).
        #expect(rootRequests == Self.runs)
    }

    /// A warm-up that fails is no failed run: `Data(contentsOf:)` reports the root's 404 as a plain
    /// error (it cannot say it was an HTTP status), and its rows are measured all the same, cold.
    @Test func aFailedWarmUpIsMeasuredColdNotAFailure() throws {
        let (output, warmedUp, rootRequests) = try run([], strategies: ["contents-of"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(warmedUp == Array(repeating: "0", count: Self.runs))
        #expect(rootRequests == Self.runs)
    }

    @Test func coldMeasuresTheFirstRequest() throws {
        let (output, warmedUp, rootRequests) = try run(["--cold"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardError.contains("cold: no warm-up fetch"))
        #expect(warmedUp == Array(repeating: "0", count: Self.runs))
        #expect(rootRequests == 0)
    }

    @Test func coldWithAWarmUpURLIsAUsageError() throws {
        let output = try BenchProcess.run([
            "--url", "http://127.0.0.1:9/x.jpg", "--cold", "--warmup-url", "http://127.0.0.1:9/w",
        ])
        #expect(output.status == 64)
        #expect(output.standardError.contains("--cold"))
    }
}
