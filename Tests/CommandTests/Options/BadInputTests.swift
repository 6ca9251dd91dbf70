import BenchCore
import Foundation
import LoopbackServer
import Report
import TestSupport
import Testing

/// Bad input must give a clear message and a distinct status, never a crash of the parent;
/// a failing run is a CSV row with its status. Each case runs the real binary.
@Suite struct BadInputTests {
    static let quick = ["--allocator", "system", "--runs", "1"]

    @Test func unknownStrategyNamesTheValidChoices() throws {
        let output = try BenchProcess.run(["--strategy", "carrier-pigeon"])
        #expect(output.status == 64)
        #expect(output.standardError.contains("The value 'carrier-pigeon' is invalid for '--strategy <name>'"))
        #expect(output.standardError.contains("valid: data, download, "), "\(output.standardError)")
    }

    @Test func unknownRendererNamesTheValidChoices() throws {
        let output = try BenchProcess.run(["--render", "sideways"])
        #expect(output.status == 64)
        #expect(
            output.standardError.contains("--render 'sideways' is not valid; valid: none, full, thumbnail"),
            "\(output.standardError)"
        )
    }

    @Test(arguments: [
        ["--runs", "0"], ["--url", "not a url"], ["--url", "ftp://127.0.0.1/x.jpg"],
        ["--warmup-url", "http://127.0.0.1/w"], ["--quality", "0"],
    ])
    func invalidOptionsAreUsageErrors(arguments: [String]) throws {
        let output = try BenchProcess.run(arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
        #expect(output.standardError.contains("Error:"))
    }

    /// An unknown encoding names every valid one; --progressive is an alias that cannot contradict --encoding.
    @Test(arguments: [
        (["--encoding", "gif"], "jpeg-progressive-444"),
        (["--progressive", "--encoding", "png-rgb"], "--progressive means --encoding jpeg-progressive"),
        (["--encoding", "webp-lossless", "--width", "20000"], "WebP is at most 16383 pixels a side"),
    ])
    func badEncodingsAreUsageErrorsNamingTheChoices(arguments: [String], message: String) throws {
        let output = try BenchProcess.run(arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }

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

@Suite struct ReportAndSweepInputTests {
    @Test func reportWithoutTrialsCSVSaysWhatToRun() throws {
        let folder = BenchProcess.temporaryFolder()
        let output = try BenchProcess.run(["report", "--results", folder.path])
        #expect(output.status == 66)
        #expect(output.standardError.contains("trials.csv does not exist"))
        #expect(output.standardError.contains("make bench"))
    }

    @Test func reportWithAMalformedTrialsCSVIsADataError() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "strategy,render\ndata,none\n".write(
            to: folder.appendingPathComponent("trials.csv"),
            atomically: true,
            encoding: .utf8
        )
        let output = try BenchProcess.run(["report", "--results", folder.path])
        #expect(output.status == 65)
        #expect(output.standardError.contains("missing column(s) allocator, run, status"))
    }

    @Test(arguments: [
        ["--sizes", "1,x"], ["--sizes", ""], ["--sizes", "1000"], ["--strategy", "pigeon"], ["--render", "sideways"],
    ])
    func sweepRejectsBadOptions(arguments: [String]) throws {
        let output = try BenchProcess.run(["sweep"] + arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
    }

    /// image-server's own options: a folder that cannot be served names why; a cap names its choices.
    @Test(arguments: [
        (["--images", "/nonexistent-images-folder"], "cannot read the folder /nonexistent-images-folder"),
        (["--images", "/proc/self/fdinfo"], "has no image the harness reads"),
        (["--client-cap", "7"], "'concurrency' and 'default'"),
    ])
    func imageServerRejectsBadOptions(arguments: [String], message: String) throws {
        let output = try BenchProcess.run(["scenario", "image-server"] + arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }
}
