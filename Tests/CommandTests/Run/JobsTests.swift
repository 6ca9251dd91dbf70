import BenchCore
import Foundation
import LoopbackServer
import Report
import TestSupport
import Testing

/// `--jobs N`: the same rows as a serial run, from distinct children, and bad values refused.
@Suite(.serialized) struct JobsTests {
    static func rows(_ folder: URL, file: String = "trials.csv") throws -> [[String: String]] {
        let table = try CSV.parse(String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        let header = try #require(table.first)
        return table.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    /// `run --jobs 2` gives the rows of a serial run: every cell and run once, each from its own child.
    @Test func twoJobsGiveTheRowsOfASerialRun() throws {
        var keys: [Int: [String]] = [:]
        for jobs in [1, 2] {
            let folder = BenchProcess.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let output = try BenchProcess.run([
                "run", "--strategy", "data", "--strategy", "download", "--strategy", "curl-file",
                "--render", "none", "--render", "thumbnail", "--allocator", "system",
                "--runs", "2", "--width", "960", "--height", "640", "--jobs", String(jobs),
                "--out", folder.path,
            ])
            #expect(output.status == 0, "\(output.standardError)")
            let rows = try Self.rows(folder)
            keys[jobs] = rows.map {
                [$0["strategy"]!, $0["render"]!, $0["allocator"]!, $0["run"]!, $0["status"]!].joined(separator: "/")
            }.sorted()
            let pids = rows.compactMap { $0["pid"] }
            #expect(Set(pids).count == rows.count && !pids.contains("0"), "one child per run: \(pids)")
            let context = try #require(
                (try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("trials.json")))
                    as? [String: Any])?["context"] as? [String: Any]
            )
            #expect(context["jobs"] as? Int == jobs)
        }
        #expect(keys[1]?.count == 12)
        #expect(keys[1] == keys[2])
    }

    @Test(arguments: [["--jobs", "0"], ["--jobs", "65"], ["--jobs=-2"], ["--jobs", "many"]])
    func invalidJobsAreUsageErrors(arguments: [String]) {
        for command in ["run", "sweep", "corpus"] {
            let output = InProcessBench.parse([command] + (command == "corpus" ? ["/nonexistent"] : []) + arguments)
            #expect(output.status == 64, "\(command) \(arguments): \(output.standardError)")
            #expect(
                output.standardError.contains("--jobs") || output.standardError.contains("jobs"),
                "\(output.standardError)"
            )
        }
    }

    /// Throttled bodies measure timing: children beside them would change it.
    @Test func bandwidthNeedsOneJob() {
        let output = InProcessBench.parse(["run", "--bandwidth", "1M", "--jobs", "2"])
        #expect(output.status == 64)
        #expect(output.standardError.contains("--jobs 1"), "\(output.standardError)")
    }

    /// SIGINT kills every running child, not only one: two hung trials at once are both killed at once
    /// (the wait's bound, 30 s, is far below the server's 60 s delay).
    @Test func sigintKillsEveryRunningChild() throws {
        let server = LoopbackServer()
        server.addResource(path: "/hang.jpg", body: Data(repeating: 0, count: 1000))
        try server.start()
        defer { server.shutdown() }
        let url = server.url(for: "/hang.jpg").absoluteString + "?fault=slowFirstByte&delayMs=60000"
        let bench = try RowsKeptTests.RunningBench([
            "run", "--url", url, "--strategy", "data", "--strategy", "download",
            "--render", "none", "--allocator", "system", "--runs", "1",
            "--jobs", "2", "--timeout", "600", "--out", "out",
        ])
        let deadline = Date().addingTimeInterval(60)
        while server.requestCount(path: "/hang.jpg") < 2 && Date() < deadline { usleep(10_000) }
        let children = bench.children
        #expect(children.count == 2, "two trials at once: \(children)")
        bench.signal(SIGINT)
        #expect(bench.wait(limit: 30) == 130, "\(bench.standardError)")
        for child in children { #expect(!RowsKeptTests.RunningBench.isAlive(child), "child \(child) killed") }
        #expect(bench.scratchLeft.isEmpty, "scratch left: \(bench.scratchLeft)")
        #expect(bench.standardError.contains("interrupted by SIGINT after 0 of 2 runs"), "\(bench.standardError)")
    }
}
