import BenchCore
import Foundation
import Testing
@testable import Corpus

@Suite struct CorpusInputTests {
    @Test(arguments: ["http://127.0.0.1:8080/a.jpg", "https://localhost/x", "http://[::1]:9/y.png", "http://127.1.2.3/z"])
    func loopbackURLsAreAccepted(text: String) {
        if case .failure(let problem) = CorpusInput.loopbackURL(text) { Issue.record("\(text): \(problem)") }
    }

    @Test(arguments: ["http://example.com/a.jpg", "http://10.0.0.1/a.jpg", "http://127.0.0.1.evil.com/a", "ftp://127.0.0.1/a",
                      "/tmp/a.jpg", "http://", "http://127.0.0.999/a"])
    func otherURLsAreRefused(text: String) {
        if case .success = CorpusInput.loopbackURL(text) { Issue.record("\(text) accepted") }
    }

    @Test func filesAreFoundRecursivelySortedWithoutHiddenOnes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-input-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("b/c"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".git"), withIntermediateDirectories: true)
        for name in ["z.jpg", "b/c/y.png", "a.txt", ".hidden", ".git/x.jpg"] {
            try Data([1]).write(to: folder.appendingPathComponent(name))
        }
        let entries = try CorpusInput.entries(at: folder.path)
        #expect(entries.map(\.name) == ["a.txt", "b/c/y.png", "z.jpg"])
    }
}
