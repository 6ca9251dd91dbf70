import BenchCore
import Corpus
import Foundation
import Harness
import TestSupport
import Testing

/// A child with BENCH_LOOPBACK_ONLY=1 (every corpus child, every run on the embedded server)
/// refuses any connection off loopback, whichever way it fetches: a redirect that leaves loopback
/// goes nowhere. 192.0.2.1 is TEST-NET-1: never reachable, and never tried.
@Suite struct LoopbackGuardTests {
    @Test(arguments: ["data", "curl-memory", "contents-of"])
    func aChildRefusesAConnectionOffLoopback(strategy: String) throws {
        let work = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let spec = TrialSpec(
            strategy: strategy,
            render: .none,
            allocator: .system,
            run: 1,
            url: URL(string: "http://192.0.2.1:9/photo.jpg")!,
            warmupURL: nil,
            workDirectory: work,
            timeoutSeconds: 20
        )
        let specFile = work.appendingPathComponent("spec.json")
        try JSONEncoder().encode(spec).write(to: specFile)
        let output = try BenchProcess.run(
            ["_trial", "--stdout", "--spec-file", specFile.path],
            extraEnvironment: ["BENCH_LOOPBACK_ONLY": "1", "TMPDIR": work.path],
            timeout: 60
        )
        #expect(
            output.standardError.contains("bench: refused a connection to 192.0.2.1: only loopback"),
            "\(output.standardError)"
        )
        let report = try #require(
            output.standardOutput.split(separator: "\n").first { $0.hasPrefix("{") },
            "\(output.standardOutput)"
        )
        let row = try JSONDecoder().decode(TrialResult.self, from: Data(report.utf8))
        #expect(row.status == .transportError, "\(row.status): \(row.error)")
    }

    @Test func corpusAndEmbeddedRunsKeepTheirChildrenOnLoopback() throws {
        let runner = CorpusRunner(
            images: [],
            plan: BenchmarkPlan(strategies: ["data"], renders: [.none], allocators: [.system], runs: 1),
            settings: TrialSettings()
        )
        #expect((runner.launcher as? ChildProcessLauncher)?.loopbackOnly == true)
        let environment = try ChildProcessLauncher(loopbackOnly: true)
            .environment(workDirectory: URL(fileURLWithPath: "/tmp"), allocator: .system)
        #expect(environment["BENCH_LOOPBACK_ONLY"] == "1")
        #expect(ImageSource.embedded(fixture: .article, bandwidthBytesPerSecond: nil).isLoopback)
        #expect(
            ImageSource.external(
                url: URL(string: "http://[::1]:8080/a.jpg")!,
                warmupURL: URL(string: "http://127.0.0.1:8080/")
            ).isLoopback
        )
        #expect(!ImageSource.external(url: URL(string: "http://example.com/a.jpg")!, warmupURL: nil).isLoopback)
    }
}
