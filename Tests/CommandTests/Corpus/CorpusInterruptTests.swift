import BenchCore
import Foundation
import LoopbackServer
import TestSupport
import Testing

/// Ctrl-C while `bench corpus` fetches a URL list's images for their headers: the parent stops
/// at once, as it does during the runs. Fails on a parent that waits out each URL's timeout
/// for every URL that does not answer, or exits at a third Ctrl-C leaving no corpus.csv.
@Suite struct CorpusInterruptTests {
    @Test func sigintWhileURLsAreExaminedStopsAtOnce() throws {
        let server = LoopbackServer()
        server.addResource(path: "/hang.jpg", body: Data(repeating: 0, count: 1000))
        try server.start()
        defer { server.shutdown() }
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let hanging = server.url(for: "/hang.jpg").absoluteString + "?fault=slowFirstByte&delayMs=60000"
        let list = folder.appendingPathComponent("urls.txt")
        try Data((1...3).map { "\(hanging)&n=\($0)\n" }.joined().utf8).write(to: list)
        let bench = try RowsKeptTests.RunningBench(
            ["corpus", list.path, "--runs", "1", "--out", "out"],
            folder: folder
        )
        let deadline = Date().addingTimeInterval(60)
        while server.requestCount(path: "/hang.jpg") < 1 && Date() < deadline { usleep(10_000) }
        #expect(server.requestCount(path: "/hang.jpg") >= 1, "the first URL was not fetched: \(bench.standardError)")
        let signalled = Date()
        bench.signal(SIGINT)
        #expect(bench.wait(limit: 30) == 130, "\(bench.standardError)")
        #expect(Date().timeIntervalSince(signalled) < 10, "took \(Date().timeIntervalSince(signalled)) s to stop")
        #expect(server.requestCount(path: "/hang.jpg") == 1, "no further URL is fetched once interrupted")
        #expect(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/corpus.csv").path),
            "\(bench.standardError)"
        )
        #expect(bench.standardError.contains("interrupted by SIGINT"), "\(bench.standardError)")
    }
}
