import BenchCore
import Foundation
import LoopbackServer
import TestSupport
import Testing

/// A trial that fails is a CSV row with its status and error, the run exits 3 and the summary shows the
/// failed cells: one real child per failure class (the transport, HTTP, the decoder, a truncated body, a
/// timeout), as only a child fetching from a server can fail.
@Suite struct FailedTrialRowsTests {
    static let quick = ["--allocator", "system", "--runs", "1"]

    /// Runs against `url`, expecting exit 3 and one row per strategy with `status`.
    func expectFailedRows(url: String, render: String = "none", extra: [String] = [], status: String) throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run(
            [
                "--url", url, "--strategy", "data", "--strategy", "download",
                "--render", render, "--out", folder.path,
            ] + Self.quick + extra
        )
        #expect(output.status == 3, "\(output.standardError)")
        let rows = try CSV.parse(String(contentsOf: folder.appendingPathComponent("trials.csv"), encoding: .utf8))
        let statusColumn = try #require(rows.first?.firstIndex(of: "status"))
        let errorColumn = try #require(rows.first?.firstIndex(of: "error"))
        #expect(rows.count == 3, "a header and one row per strategy")
        for row in rows.dropFirst() {
            #expect(row[statusColumn] == status, "\(row)")
            #expect(!row[errorColumn].isEmpty)
        }
        #expect(output.standardOutput.contains("0/1"), "the summary shows the failed cells")
    }

    @Test func unreachableServerIsATransportErrorRow() throws {
        try expectFailedRows(url: "http://127.0.0.1:1/fixture.jpg", status: "transport_error")
    }

    @Test func missingResourceIsAnHTTPErrorRow() throws {
        let server = LoopbackServer()
        try server.start()
        defer { server.shutdown() }
        try expectFailedRows(url: server.url(for: "/no-such-image.jpg").absoluteString, status: "http_error")
    }

    @Test func bodyThatIsNotAJPEGIsADecodeErrorRow() throws {
        let server = LoopbackServer()
        server.addResource(path: "/text.jpg", body: Data(String(repeating: "not a jpeg ", count: 1000).utf8))
        try server.start()
        defer { server.shutdown() }
        try expectFailedRows(
            url: server.url(for: "/text.jpg").absoluteString,
            render: "full",
            status: "decode_error"
        )
    }

    @Test func truncatedBodyIsNotMeasuredAsASuccess() throws {
        let server = LoopbackServer()
        server.addResource(path: "/image.jpg", body: Data(repeating: 0xFF, count: 2_000_000))
        try server.start()
        defer { server.shutdown() }
        try expectFailedRows(
            url: server.url(for: "/image.jpg").absoluteString + "?fault=truncate&afterBytes=500000",
            status: "transport_error"
        )
    }

    @Test func hangingServerIsATimeoutRow() throws {
        let server = LoopbackServer()
        server.addResource(path: "/slow.jpg", body: Data(repeating: 0, count: 1000))
        try server.start()
        defer { server.shutdown() }
        try expectFailedRows(
            url: server.url(for: "/slow.jpg").absoluteString + "?fault=slowFirstByte&delayMs=8000",
            extra: ["--timeout", "2"],
            status: "timeout"
        )
    }
}
