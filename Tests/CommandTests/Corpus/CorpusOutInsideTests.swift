import Foundation
import TestSupport
import Testing

/// `bench corpus <folder> --out <folder>/results`: a second run must not measure the first run's
/// CSVs and chart data as corpus files ("not an image" rows); the output folder is skipped, also
/// when named through a symbolic link, and stderr says so. In-process (`InProcessBench`, recorded children).
@Suite struct CorpusOutInsideTests {
    @Test func aSecondRunDoesNotMeasureTheFirstRunsOutput() throws {
        let corpus = TestFolder.temporary()
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: corpus) }
        for (name, encoding) in [("a.jpg", "jpeg"), ("b.png", "png-rgb")] {
            let made = InProcessBench.run([
                "fixture", "--width", "64", "--height", "48", "--encoding", encoding,
                "--out", corpus.appendingPathComponent(name).path,
            ])
            try #require(made.status == 0, "\(made.standardError)")
        }
        let quick = ["--runs", "1", "--render", "none", "--allocator", "system"]
        let first = InProcessBench.run(
            ["corpus", corpus.path, "--out", corpus.appendingPathComponent("results").path] + quick
        )
        #expect(first.status == 0, "\(first.standardError)")

        // The second run names the same folder through a link: the paths are compared resolved.
        let link = TestFolder.temporary()
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: corpus)
        defer { try? FileManager.default.removeItem(at: link) }
        // --replace: the first run's files are there, and replacing them is what this run is for.
        let second = InProcessBench.run(
            ["corpus", corpus.path, "--out", link.appendingPathComponent("results").path, "--replace"] + quick
        )
        #expect(second.status == 0, "\(second.standardError)")
        let files = try JobsTests.rows(corpus.appendingPathComponent("results"), file: "corpus.csv").map { $0["file"]! }
        #expect(files.sorted() == ["a.jpg", "b.png"], "\(files)")
        let notes = second.standardError.split(separator: "\n").filter { $0.contains("skipping") }
        #expect(notes.count == 1 && notes[0].contains("results"), "\(second.standardError)")
    }
}
