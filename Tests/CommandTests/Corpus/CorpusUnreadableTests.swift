import Foundation
import TestSupport
import Testing

/// `bench corpus` as a user who cannot read everything (run as `nobody`: root ignores permission
/// bits), over a folder with an unreadable subfolder and files whose names are not plain text: a
/// name that is not UTF-8 and one with a newline. Nothing the walk meets is dropped: the folder is
/// a read_error row, the odd names are measured under an escaped, byte-exact name, the file count
/// holds them all and the printed table keeps one line per image.
@Suite(.serialized) struct CorpusUnreadableTests {
    static let nobody: uid_t = 65534

    @Test func anUnreadableFolderAndOddNamesAreRowsNotGaps() throws {
        let scratch = BenchProcess.temporaryFolder()
        let corpus = scratch.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(
            at: corpus.appendingPathComponent("private"),
            withIntermediateDirectories: true
        )
        defer {
            chmod(corpus.appendingPathComponent("private").path, 0o755)
            try? FileManager.default.removeItem(at: scratch)
        }
        let made = InProcessBench.run([
            "fixture", "--width", "64", "--height", "48", "--out", corpus.appendingPathComponent("a.jpg").path,
        ])
        try #require(made.status == 0, "\(made.standardError)")
        let jpeg = try Data(contentsOf: corpus.appendingPathComponent("a.jpg"))
        try jpeg.write(to: corpus.appendingPathComponent("private/b.jpg"))
        try Self.writeRaw(jpeg, folder: corpus, name: Array("a".utf8) + [0xFF] + Array(".jpg".utf8))
        try Self.writeRaw(jpeg, folder: corpus, name: Array("new\nline.jpg".utf8))
        try jpeg.write(to: corpus.appendingPathComponent("secret.jpg"))
        #expect(chmod(corpus.appendingPathComponent("private").path, 0) == 0)
        #expect(chmod(corpus.appendingPathComponent("secret.jpg").path, 0) == 0)

        // Where nobody may write: the results, TMPDIR (the children's scratch) and HOME.
        let out = scratch.appendingPathComponent("out")
        let temporary = scratch.appendingPathComponent("tmp")
        for folder in [out, temporary] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            #expect(chown(folder.path, Self.nobody, Self.nobody) == 0)
        }
        // nobody runs a copy of bench in the scratch folder: the build folder may sit inside a folder
        // only root can enter (a clone in root's home), and the test must pass from any checkout.
        let executable = try Self.copyReachableByAnyone(BenchProcess.executable, into: scratch)
        let output = try BenchProcess.run(
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/env", "TMPDIR=\(temporary.path)",
                "HOME=\(temporary.path)",
                executable, "corpus", corpus.path, "--render", "full", "--runs", "1", "--out", out.path,
            ],
            program: "/usr/bin/setpriv"
        )
        #expect(output.status == 3, "the unreadable folder is a failed row: \(output.standardError)")

        let rows = try JobsTests.rows(out, file: "corpus.csv")
        let byFile = Dictionary(grouping: rows, by: { $0["file"]! })
        #expect(
            Set(byFile.keys) == ["a.jpg", #"a\xff.jpg"#, #"new\nline.jpg"#, "private/", "secret.jpg"],
            "\(rows.map { $0["file"]! })"
        )
        for name in ["a.jpg", #"a\xff.jpg"#, #"new\nline.jpg"#] {
            #expect(byFile[name]?.map { $0["status"] } == ["ok"], "\(name): \(byFile[name] ?? [])")
        }
        for name in ["private/", "secret.jpg"] {
            let row = try #require(byFile[name]?.first)
            #expect(
                byFile[name]?.count == 1 && row["status"] == "read_error"
                    && row["error"]!.contains("Permission denied"),
                "\(row)"
            )
        }
        #expect(output.standardError.contains("corpus: 5 files, 3 images to measure"), "\(output.standardError)")

        // The ranking: a header, a rule, one line per measured image, each starting with its rank.
        let table = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        let rule = try #require(table.firstIndex { $0.hasPrefix("----") }, "\(output.standardOutput)")
        let body = table[(rule + 1)...].prefix { !$0.hasPrefix("worst") && !$0.isEmpty }
        #expect(body.count == 3, "\(output.standardOutput)")
        #expect(
            body.allSatisfy { $0.trimmingCharacters(in: .whitespaces).first?.isNumber == true },
            "\(output.standardOutput)"
        )
        #expect(output.standardOutput.contains(#"new\nline.jpg"#) && output.standardOutput.contains(#"a\xff.jpg"#))
    }

    /// A copy of `executable` that any user can run: the folder and every folder above it must be
    /// searchable by others, or the copy is refused with the reason.
    static func copyReachableByAnyone(_ executable: String, into folder: URL) throws -> String {
        let copy = folder.appendingPathComponent("bench-for-nobody")
        try FileManager.default.copyItem(atPath: executable, toPath: copy.path)
        #expect(chmod(copy.path, 0o755) == 0)
        var above = folder
        while above.path != "/" {
            var status = stat()
            try #require(stat(above.path, &status) == 0)
            try #require(status.st_mode & S_IXOTH != 0, "\(above.path) is not searchable by other users (TMPDIR?)")
            above.deleteLastPathComponent()
        }
        return copy.path
    }

    /// A file named by raw bytes (open(2) takes any bytes but "/" and NUL; a Swift String cannot hold them all).
    static func writeRaw(_ data: Data, folder: URL, name: [UInt8]) throws {
        let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + name + [0]
        let descriptor = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        try #require(descriptor >= 0, "open: \(String(cString: strerror(errno)))")
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        try #require(written == data.count)
    }
}
