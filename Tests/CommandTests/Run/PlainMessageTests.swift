import BenchCore
import Foundation
import LoopbackServer
import TestSupport
import Testing

/// Errors that could surface as exit 1 or a row with a raw error (errno 98, URLError -1000 and -1001,
/// NSCocoaErrorDomain 256): each is a message that says what is wrong, with a documented
/// status. In-process (`InProcessBench`) but for the server on a busy port and the hung server's rows,
/// real `bench` processes.
@Suite(.serialized) struct PlainMessageTests {
    static let quick = ["--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "1"]

    static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: TimeInterval = 120
    ) throws -> CommandOutput {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try BenchProcess.run(
            arguments,
            workingDirectory: folder,
            extraEnvironment: environment,
            timeout: timeout
        )
    }

    /// serve on a port in use exits with the busy status and names the port, without an errno.
    @Test func serveOnABusyPortNamesThePort() throws {
        let holder = LoopbackServer()
        try holder.start()
        defer { holder.shutdown() }
        let output = try Self.run([
            "serve", "--port", String(holder.port), "--seconds", "5", "--width", "64", "--height", "64",
        ])
        #expect(output.status == BenchExitCode.outputBusy.rawValue, "\(output.status) \(output.standardError)")
        #expect(output.standardError.contains("port \(holder.port) on 127.0.0.1 is in use"), "\(output.standardError)")
        #expect(!output.standardError.contains("errno"), "\(output.standardError)")
    }

    /// A --url whose port is out of range is a usage error naming the port and the range, before any run.
    @Test(arguments: ["http://127.0.0.1:99999/x.jpg", "http://127.0.0.1:0/x.jpg", "http://[::1]:70000/x.jpg"])
    func aURLWithAPortOutOfRangeIsRefused(url: String) throws {
        let output = InProcessBench.run(["run", "--url", url, "--out", TestFolder.temporary().path] + Self.quick)
        #expect(output.status == 64, "\(output.status) \(output.standardError)")
        let port = url.split(separator: ":").last!.split(separator: "/").first!
        #expect(output.standardError.contains("port \(port) is out of range (1-65535)"), "\(output.standardError)")
    }

    @Test func aWarmupURLWithAPortOutOfRangeIsRefused() throws {
        let output = InProcessBench.run(
            [
                "run", "--url", "http://127.0.0.1:8080/x.jpg", "--warmup-url", "http://127.0.0.1:65536/",
                "--out", TestFolder.temporary().path,
            ] + Self.quick
        )
        #expect(output.status == 64, "\(output.status) \(output.standardError)")
        #expect(
            output.standardError.contains("--warmup-url")
                && output.standardError.contains("port 65536 is out of range (1-65535)"),
            "\(output.standardError)"
        )
    }

    /// A listener that never accepts or answers: the kernel completes the handshake, the request
    /// sits in the backlog, and no byte ever comes back.
    final class SilentListener {
        let descriptor: Int32
        let port: Int

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    bind(descriptor, generic, length) == 0 && listen(descriptor, 16) == 0
                        && getsockname(descriptor, generic, &length) == 0
                }
            }
            guard bound else {
                close(descriptor)
                throw POSIXError(.EADDRNOTAVAIL)
            }
            self.descriptor = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(descriptor) }
    }

    /// A hung server is a timeout row that says how long it waited without data, for URLSession's
    /// strategies and contents-of alike, never a framework's error dump. Waits out URLSession's own 60 s: a slow test.
    @Test func aHungServerIsATimeoutThatSaysHowLong() throws {
        let listener = try SilentListener()
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run(
            [
                "run", "--url", "http://127.0.0.1:\(listener.port)/x.jpg", "--cold",
                "--strategy", "data", "--strategy", "contents-of", "--render", "none",
                "--allocator", "system", "--runs", "1", "--jobs", "2", "--timeout", "150",
                "--out", folder.path,
            ],
            timeout: 240
        )
        #expect(output.status == 3, "\(output.standardError)")
        let rows = try CSV.parse(String(contentsOf: folder.appendingPathComponent("trials.csv"), encoding: .utf8))
        let errorColumn = try #require(rows.first?.firstIndex(of: "error"))
        let errors = rows.dropFirst().filter { $0.count > errorColumn }.map { $0[errorColumn] }
        #expect(errors.count == 2, "\(rows)")
        for error in errors {
            #expect(error.contains("timed out after 60 s without data from the server"), "\(error)")
            #expect(!error.contains("could not be completed"), "\(error)")
        }
    }

    /// compare given a folder for either file names the folder and what it expected, without a framework's error dump.
    @Test func compareWithAFolderNamesIt() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let baseline = folder.appendingPathComponent("baseline.csv")
        try CompareCommandTests.trials(runs: 3).write(to: baseline, atomically: true, encoding: .utf8)
        let runFolder = folder.appendingPathComponent("a run")
        try FileManager.default.createDirectory(at: runFolder, withIntermediateDirectories: true)
        for (arguments, which) in [
            ([baseline.path, runFolder.path], "current"), ([runFolder.path, baseline.path], "baseline"),
        ] {
            let output = InProcessBench.run(
                ["compare"] + arguments + ["--thresholds", CompareCommandTests.thresholdsFile]
            )
            #expect(output.status == 3, "\(which): \(output.status) \(output.standardError)")
            #expect(
                output.standardError.contains("\(runFolder.path) is a folder, not a trials.csv or trials.json"),
                "\(which): \(output.standardError)"
            )
            #expect(!output.standardError.contains("NSCocoaErrorDomain"), "\(output.standardError)")
        }
    }
}
