import BenchCore
import Corpus
import Foundation
import Testing

@Suite struct CorpusInputTests {
    @Test(arguments: [
        "http://127.0.0.1:8080/a.jpg", "https://localhost/x", "http://[::1]:9/y.png", "http://127.1.2.3/z",
    ])
    func loopbackURLsAreAccepted(text: String) {
        if case .failure(let problem) = CorpusInput.loopbackURL(text) { Issue.record("\(text): \(problem)") }
    }

    @Test(arguments: [
        "http://example.com/a.jpg", "http://10.0.0.1/a.jpg", "http://127.0.0.1.evil.com/a", "ftp://127.0.0.1/a",
        "/tmp/a.jpg", "http://", "http://127.0.0.999/a",
    ])
    func otherURLsAreRefused(text: String) {
        if case .success = CorpusInput.loopbackURL(text) { Issue.record("\(text) accepted") }
    }

    @Test func filesAreFoundRecursivelySortedWithoutHiddenOnes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "corpus-input-\(UUID().uuidString.prefix(8))"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("b/c"),
            withIntermediateDirectories: true
        )
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent(".git"),
            withIntermediateDirectories: true
        )
        for name in ["z.jpg", "b/c/y.png", "a.txt", ".hidden", ".git/x.jpg"] {
            try Data([1]).write(to: folder.appendingPathComponent(name))
        }
        let entries = try CorpusInput.entries(at: folder.path)
        #expect(entries.map(\.name) == ["a.txt", "b/c/y.png", "z.jpg"])
    }

    /// A list saved with Windows line endings: "\r\n" is one Character, so splitting on "\n" alone
    /// would join every line into one URL.
    @Test func aListWithCRLFLineEndingsHasOneEntryALine() throws {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent(
            "corpus-crlf-\(UUID().uuidString.prefix(8)).txt"
        )
        defer { try? FileManager.default.removeItem(at: list) }
        try Data("# images\r\nhttp://127.0.0.1:8080/a.jpg\r\n\r\nhttp://127.0.0.1:8080/b.png\r\n".utf8).write(to: list)
        let entries = try CorpusInput.entries(at: list.path)
        #expect(entries.map(\.name) == ["http://127.0.0.1:8080/a.jpg", "http://127.0.0.1:8080/b.png"])
    }

    @Test func aBadLineOfACRLFListIsNamedByItsNumber() throws {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent(
            "corpus-crlf-\(UUID().uuidString.prefix(8)).txt"
        )
        defer { try? FileManager.default.removeItem(at: list) }
        try Data("http://127.0.0.1:8080/a.jpg\r\nhttp://example.com/b.jpg\r\n".utf8).write(to: list)
        do {
            _ = try CorpusInput.entries(at: list.path)
            Issue.record("a non-loopback line was accepted")
        } catch {
            #expect(error.kind == .badList)
            #expect(error.description.contains("line 2: 'example.com'"))
        }
    }

    /// A folder of links to photos is a folder of photos: a link to a file is looked at (under the
    /// link's name); a broken link is kept, to be a read_error row; a link to a folder is not followed.
    @Test func linksToFilesAreLookedAtAndBrokenLinksAreKept() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "corpus-links-\(UUID().uuidString.prefix(8))"
        )
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent(
            "corpus-elsewhere-\(UUID().uuidString.prefix(8))"
        )
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: elsewhere.appendingPathComponent("sub"),
            withIntermediateDirectories: true
        )
        try Data([1]).write(to: elsewhere.appendingPathComponent("photo.jpg"))
        try Data([1]).write(to: elsewhere.appendingPathComponent("sub/inner.jpg"))
        let manager = FileManager.default
        try manager.createSymbolicLink(
            atPath: folder.appendingPathComponent("linked.jpg").path,
            withDestinationPath: elsewhere.appendingPathComponent("photo.jpg").path
        )
        try manager.createSymbolicLink(
            atPath: folder.appendingPathComponent("broken.jpg").path,
            withDestinationPath: elsewhere.appendingPathComponent("gone.jpg").path
        )
        try manager.createSymbolicLink(
            atPath: folder.appendingPathComponent("dir").path,
            withDestinationPath: elsewhere.appendingPathComponent("sub").path
        )
        try manager.createSymbolicLink(
            atPath: folder.appendingPathComponent("zero").path,
            withDestinationPath: "/dev/zero"
        )
        let entries = try CorpusInput.entries(at: folder.path)
        #expect(entries.map(\.name) == ["broken.jpg", "linked.jpg"])
    }
}

@Suite struct RawPathTests {
    /// One line, every byte kept, distinct names distinct: UTF-8 text as is, the rest escaped.
    @Test func namesAreEscapedByteExact() {
        #expect(RawPath.escaped(Array("photo é 写真.jpg".utf8)) == "photo é 写真.jpg")
        #expect(RawPath.escaped(Array("a".utf8) + [0xFF] + Array(".jpg".utf8)) == #"a\xff.jpg"#)
        #expect(RawPath.escaped(Array("new\nline\r\t\u{1B}.jpg".utf8)) == #"new\nline\r\t\x1b.jpg"#)
        // A backslash is doubled, so a name spelled like an escape stays apart from the byte it spells.
        #expect(RawPath.escaped(Array(#"a\xff.jpg"#.utf8)) == #"a\\xff.jpg"#)
        // A cut multi-byte sequence: its bytes, each escaped, then the rest.
        #expect(RawPath.escaped([0xE5, 0x86, UInt8(ascii: "x")]) == #"\xe5\x86x"#)
    }

    /// A format character (category Cf) would reorder or hide the rest of a table's line: its bytes, escaped.
    @Test func formatCharactersAreEscaped() {
        #expect(RawPath.escaped(Array("a\u{202E}gpj.exe".utf8)) == #"a\xe2\x80\xaegpj.exe"#)
        #expect(
            RawPath.escaped(Array("zero\u{200B}width\u{FEFF}.jpg".utf8))
                == #"zero\xe2\x80\x8bwidth\xef\xbb\xbf.jpg"#
        )
    }
}
