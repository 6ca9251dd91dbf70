import Foundation
import TestSupport
import Testing

/// `bench scenario image-server --listen 0` driven from outside by wrk (Debian's, scripts/setup.sh):
/// it says where it listens, serves wrk's requests, and on SIGINT writes its row and exits 0,
/// leaving no server running.
@Suite(.serialized) struct ListenTests {
    @Test func wrkDrivesTheListeningServerAndSIGINTWritesItsRow() throws {
        let wrk = "/usr/bin/wrk"
        try #require(FileManager.default.isExecutableFile(atPath: wrk), "wrk is not installed: run scripts/setup.sh")
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("stdout.txt")
        let bench = Process()
        bench.executableURL = URL(fileURLWithPath: BenchProcess.executable)
        bench.arguments = [
            "scenario", "image-server", "--listen", "0", "--strategy", "curl-memory", "--render", "stream",
            "--concurrency", "4", "--width", "1200", "--height", "900",
            "--fixture-cache", testFixtureCache("image-server").path, "--out",
            folder.appendingPathComponent("out").path,
        ]
        FileManager.default.createFile(atPath: output.path, contents: nil)
        bench.standardOutput = try FileHandle(forWritingTo: output)
        bench.standardError = FileHandle.nullDevice
        try bench.run()
        defer { if bench.isRunning { kill(bench.processIdentifier, SIGKILL) } }

        var url: String?
        let deadline = Date().addingTimeInterval(120)
        while url == nil && bench.isRunning && Date() < deadline {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            url = text.split(separator: "\n").first { $0.hasPrefix("listening on ") }
                .flatMap { $0.split(separator: " ").dropFirst(2).first }.map(String.init)
            usleep(50_000)
        }
        let base = try #require(
            url,
            "no 'listening on' line: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")"
        )
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let load = try BenchProcess.run(
            ["-t", "2", "-c", "4", "-d", "2s", "\(base)/image/fixture.jpg"],
            program: wrk,
            timeout: 60
        )
        #expect(load.status == 0, "\(load.standardError)")
        #expect(!load.standardOutput.contains("Non-2xx"), "\(load.standardOutput)")

        kill(bench.processIdentifier, SIGINT)
        let ended = Date().addingTimeInterval(60)
        while bench.isRunning && Date() < ended { usleep(50_000) }
        #expect(!bench.isRunning, "bench still running 60 s after SIGINT")
        bench.waitUntilExit()
        #expect(bench.terminationStatus == 0)

        let table = try String(contentsOf: folder.appendingPathComponent("out/server.csv"), encoding: .utf8)
        let lines = table.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        try #require(lines.count == 2, "\(table)")
        let row = Dictionary(uniqueKeysWithValues: zip(lines[0].map(String.init), lines[1].map(String.init)))
        #expect(row["status"] == "ok", "\(row)")
        #expect(row["load"] == "outside")
        let requests = try #require(row["requests"].flatMap { Int($0) })
        #expect(requests >= 4, "\(row)")
        #expect(row["requests_ok"] == row["requests"])
        #expect((1...4).contains(try #require(row["max_in_flight"].flatMap { Int($0) })), "\(row)")
        // The server child is gone with its parent's end.
        let child = try #require(row["pid"].flatMap { Int32($0) })
        #expect(kill(child, 0) != 0 && errno == ESRCH, "the server child \(child) is still running")
    }
}
