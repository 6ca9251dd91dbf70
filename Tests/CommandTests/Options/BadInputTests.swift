import Foundation
import TestSupport
import Testing

/// Bad input must give a clear message and a distinct status, never a crash of the parent: parsed and
/// validated in-process as `bench` does (`InProcessBench`), before any server, fixture or child.
@Suite struct BadInputTests {
    @Test func unknownStrategyNamesTheValidChoices() {
        let output = InProcessBench.parse(["--strategy", "carrier-pigeon"])
        #expect(output.status == 64)
        #expect(output.standardError.contains("The value 'carrier-pigeon' is invalid for '--strategy <name>'"))
        #expect(output.standardError.contains("valid: data, download, "), "\(output.standardError)")
    }

    @Test func unknownRendererNamesTheValidChoices() {
        let output = InProcessBench.parse(["--render", "sideways"])
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
    func invalidOptionsAreUsageErrors(arguments: [String]) {
        let output = InProcessBench.parse(arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
        #expect(output.standardError.contains("Error:"))
    }

    /// An unknown encoding names every valid one; --progressive is an alias that cannot contradict --encoding.
    @Test(arguments: [
        (["--encoding", "gif"], "jpeg-progressive-444"),
        (["--progressive", "--encoding", "png-rgb"], "--progressive means --encoding jpeg-progressive"),
        (["--encoding", "webp-lossless", "--width", "20000"], "WebP is at most 16383 pixels a side"),
    ])
    func badEncodingsAreUsageErrorsNamingTheChoices(arguments: [String], message: String) {
        let output = InProcessBench.parse(arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }
}

@Suite struct ReportAndSweepInputTests {
    @Test func reportWithoutTrialsCSVSaysWhatToRun() {
        let folder = TestFolder.temporary()
        let output = InProcessBench.run(["report", "--results", folder.path])
        #expect(output.status == 66)
        #expect(output.standardError.contains("trials.csv does not exist"))
        #expect(output.standardError.contains("make bench"))
    }

    @Test func reportWithAMalformedTrialsCSVIsADataError() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "strategy,render\ndata,none\n".write(
            to: folder.appendingPathComponent("trials.csv"),
            atomically: true,
            encoding: .utf8
        )
        let output = InProcessBench.run(["report", "--results", folder.path])
        #expect(output.status == 65)
        #expect(output.standardError.contains("missing column(s) allocator, run, status"))
    }

    @Test(arguments: [
        ["--sizes", "1,x"], ["--sizes", ""], ["--sizes", "1000"], ["--strategy", "pigeon"], ["--render", "sideways"],
    ])
    func sweepRejectsBadOptions(arguments: [String]) {
        let output = InProcessBench.parse(["sweep"] + arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
    }

    /// image-server's own options: a folder that cannot be served names why; a cap names its choices.
    @Test(arguments: [
        (["--images", "/nonexistent-images-folder"], "cannot read the folder /nonexistent-images-folder"),
        (["--images", "/proc/self/fdinfo"], "has no image the harness reads"),
        (["--client-cap", "7"], "'concurrency' and 'default'"),
    ])
    func imageServerRejectsBadOptions(arguments: [String], message: String) {
        let output = InProcessBench.parse(["scenario", "image-server"] + arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }
}
