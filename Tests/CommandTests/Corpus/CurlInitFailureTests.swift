import BenchCore
import Foundation
import Harness
import TestSupport
import Testing

/// libcurl that cannot make a handle (curl_easy_init returning NULL, as it does out of memory):
/// the curl strategies' rows say so (transport_error), the child does not trap on a `try!`.
/// (URLSession's strategies are left out: FoundationNetworking runs on libcurl and `try!`s its
/// own handles, which is not ours to fix.)
@Suite(.serialized) struct CurlInitFailureTests {
    /// A shared library whose curl_easy_init fails and which brings jemalloc with it: given to
    /// bench as its jemalloc (BENCH_JEMALLOC), it is preloaded into the --allocator jemalloc
    /// children only (the parent removes LD_PRELOAD from the system allocator's children).
    static func failingCurlLibrary(in folder: URL) throws -> URL {
        let source = folder.appendingPathComponent("nocurl.c")
        let library = folder.appendingPathComponent("libnocurl.so")
        let jemalloc = try #require(JemallocLibrary.locate(), "jemalloc is installed (scripts/setup.sh)")
        try "void *curl_easy_init(void) { return 0; }\n".write(to: source, atomically: true, encoding: .utf8)
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = [
            "cc", "-shared", "-fPIC", "-o", library.path, source.path, "-Wl,--no-as-needed", jemalloc,
        ]
        try compiler.run()
        compiler.waitUntilExit()
        try #require(compiler.terminationStatus == 0, "cc could not build the preload library")
        return library
    }

    @Test func curlStrategiesWithoutAHandleAreTransportErrorRows() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try Self.failingCurlLibrary(in: folder)
        let out = folder.appendingPathComponent("out")
        let output = try BenchProcess.run(
            [
                "run", "--strategy", "curl-memory", "--strategy", "curl-file",
                "--render", "none", "--allocator", "jemalloc", "--runs", "1",
                "--width", "320", "--height", "200", "--out", out.path,
            ],
            extraEnvironment: ["BENCH_JEMALLOC": library.path]
        )
        #expect(output.status == 3, "some runs failed: \(output.status) \(output.standardError.suffix(800))")
        let rows = try JobsTests.rows(out)
        let byStrategy = Dictionary(grouping: rows, by: { $0["strategy"]! })
        for strategy in ["curl-memory", "curl-file"] {
            let row = try #require(byStrategy[strategy]?.first, "\(strategy) has its row")
            #expect(row["status"] == "transport_error" && row["error"]!.contains("curl_easy_init failed"), "\(row)")
        }
    }
}
