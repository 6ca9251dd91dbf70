import Foundation
import TestSupport
import Testing

/// `$TMPDIR` holds each run's scratch folder: one that is missing, not a folder or read-only is
/// refused once, before the first trial (73, naming it), and bench creates nothing for it.
@Suite(.serialized) struct TemporaryFolderTests {
    static let quick = HolderNamingFaultsTests.quick

    @Test(arguments: ["run", "corpus"], ["missing", "a file"])
    func anUnusableTMPDIRIsRefusedBeforeTheFirstTrial(command: String, problem: String) throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let temporary: URL
        if problem == "missing" {
            temporary = folder.appendingPathComponent("nonexistent/dir")
        } else {
            temporary = folder.appendingPathComponent("file")
            try "not a folder".write(to: temporary, atomically: true, encoding: .utf8)
        }
        try Self.expectRefusal(command: command, temporary: temporary, in: folder)
        if problem == "missing" {
            #expect(
                !FileManager.default.fileExists(atPath: folder.appendingPathComponent("nonexistent").path),
                "bench created the missing TMPDIR"
            )
        }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs"))
    func aReadOnlyTMPDIRIsRefusedBeforeTheFirstTrial() throws {
        let mount = try TinyMount(options: "ro,size=64k")
        defer { mount.unmount() }
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.expectRefusal(command: "run", temporary: mount.path, in: folder)
    }

    /// `command` with TMPDIR=`temporary` exits 73 naming it, and writes no --out.
    static func expectRefusal(command: String, temporary: URL, in folder: URL) throws {
        let out = folder.appendingPathComponent("out")
        let arguments =
            command == "corpus"
            ? ["corpus", try Self.corpusImage(in: folder).path, "--runs", "1", "--out", out.path]
            : Self.quick + ["--out", out.path]
        let output = try BenchProcess.run(arguments, extraEnvironment: ["TMPDIR": temporary.path], timeout: 120)
        #expect(output.status == 73, "\(command): \(output.status) \(output.standardError)")
        #expect(output.standardError.contains("TMPDIR=\(temporary.path)"), "\(output.standardError)")
        #expect(!FileManager.default.fileExists(atPath: out.path), "--out written before the refusal")
    }

    /// A folder with one small JPEG, made by `bench fixture`, for `bench corpus`.
    static func corpusImage(in folder: URL) throws -> URL {
        let images = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let made = InProcessBench.run(["fixture", "--width", "64", "--height", "48", "--out", images.path])
        #expect(made.status == 0, "\(made.standardError)")
        return images
    }
}
