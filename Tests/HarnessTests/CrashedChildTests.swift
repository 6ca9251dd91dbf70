import BenchCore
import Foundation
import Report
import TestSupport
import Testing

/// A child that dies must leave a row that says what happened. FoundationNetworking's
/// download path `try!`s its writes into TMPDIR: on a full disk the child traps, and its
/// stderr ends in the backtracer's image list. The row must carry the signal and the
/// fatal error line ("No space left on device"), not those last lines.
@Suite(.serialized) struct CrashedChildTests {
    /// Mounts a 512 KiB tmpfs (the test runs as root; otherwise nil and the test says so).
    static func mountSmallTmpfs() -> URL? {
        let point = BenchProcess.temporaryFolder()
        try? FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", point.path]) == 0 else {
            try? FileManager.default.removeItem(at: point)
            return nil
        }
        return point
    }

    static func unmount(_ point: URL) {
        _ = run("/bin/umount", [point.path])
        try? FileManager.default.removeItem(at: point)
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func enospcInTheChildsTmpdirIsARowNamingTheSignalAndTheFatalError() throws {
        guard let tmpfs = Self.mountSmallTmpfs() else {
            Issue.record("cannot mount a tmpfs (not root?): this test needs a real full disk")
            return
        }
        defer { Self.unmount(tmpfs) }
        let out = BenchProcess.temporaryFolder()
        let cache = BenchProcess.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: cache)
        }
        // The parent's TMPDIR is the tmpfs: its scratch folder, and so each child's TMPDIR
        // (where download tasks write), is there. The ~1 MB body does not fit in 512 KiB.
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmpfs.path
        let status = Self.run(
            BenchProcess.executable,
            [
                "--strategy", "download", "--render", "none", "--allocator", "system", "--runs", "1",
                "--width", "1600", "--height", "1200", "--fixture-cache", cache.path, "--out", out.path,
            ],
            environment: environment
        )
        #expect(status == 3, "a failed run, not a crash of the parent")
        let rows = try CSV.parse(String(contentsOf: out.appendingPathComponent("trials.csv"), encoding: .utf8))
        let header = try #require(rows.first)
        let row = Dictionary(uniqueKeysWithValues: zip(header, try #require(rows.dropFirst().first)))
        #expect(row["status"] == "crashed", "\(row)")
        let error = row["error"] ?? ""
        #expect(error.contains("signal 4 (Illegal instruction)"), "\(error)")
        #expect(error.contains("Fatal error:") && error.contains("No space left on device"), "\(error)")
        #expect(!error.contains("0x0000"), "no backtrace addresses: \(error)")
    }
}
