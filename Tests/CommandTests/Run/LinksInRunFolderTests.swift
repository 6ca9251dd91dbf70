import Foundation
import TestSupport
import Testing

/// A symlink placed in a run's folder is replaced by the run's file, never written through: neither
/// `--replace` nor `--resume` may write a file outside the folder.
@Suite struct LinksInRunFolderTests {
    static let run = [
        "run", "--strategy", "data", "--render", "none", "--allocator", "system", "--width", "64", "--height", "48",
    ]

    /// Files outside the folder, each named by a link inside it, and what they held.
    struct Outside {
        let folder: URL
        var contents: [String: Data] = [:]

        /// Replaces `names` in `run` by links to copies outside it (or to new files, for names not there).
        mutating func link(_ names: [String], in run: URL) throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in names {
                let inside = run.appendingPathComponent(name)
                let outside = folder.appendingPathComponent(name)
                let data = FileManager.default.contents(atPath: inside.path) ?? Data("not bench's\n".utf8)
                try data.write(to: outside)
                try? FileManager.default.removeItem(at: inside)
                try FileManager.default.createSymbolicLink(at: inside, withDestinationURL: outside)
                contents[name] = data
            }
        }

        func expectUntouched(_ step: String) {
            for (name, data) in contents {
                #expect(
                    FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) == data,
                    "\(step) wrote through the link \(name)"
                )
            }
        }
    }

    static func isLink(_ url: URL) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) != nil
    }

    @Test func replaceWritesTheRunsOwnFilesNotTheLinksTargets() throws {
        let scratch = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out")
        let first = InProcessBench.run(Self.run + ["--runs", "1", "--out", out.path])
        try #require(first.status == 0, "\(first.standardError)")
        var outside = Outside(folder: scratch.appendingPathComponent("outside"))
        try outside.link(["trials.csv", "summary.csv", "settings.json", "holders.csv"], in: out)

        let again = InProcessBench.run(Self.run + ["--runs", "1", "--out", out.path, "--replace"])
        #expect(again.status == 0, "\(again.standardError)")
        outside.expectUntouched("--replace")
        for name in outside.contents.keys {
            let file = out.appendingPathComponent(name)
            #expect(
                !Self.isLink(file) && FileManager.default.fileExists(atPath: file.path),
                "\(name) is the run's own file"
            )
        }
    }

    @Test func resumeAppendsToTheRunsOwnCopyOfWhatTheLinkShowed() throws {
        let scratch = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out")
        let first = InProcessBench.run(Self.run + ["--runs", "2", "--out", out.path])
        try #require(first.status == 0, "\(first.standardError)")
        // The run stopped after its first trial: its last row is gone.
        let trials = out.appendingPathComponent("trials.csv")
        let lines = try String(contentsOf: trials, encoding: .utf8).split(separator: "\n")
        try #require(lines.count == 3, "\(lines)")
        try (lines.dropLast().joined(separator: "\n") + "\n").write(to: trials, atomically: true, encoding: .utf8)
        var outside = Outside(folder: scratch.appendingPathComponent("outside"))
        try outside.link(["trials.csv", "timeline.csv", "summary.csv"], in: out)

        let resumed = InProcessBench.run(Self.run + ["--runs", "2", "--out", out.path, "--resume"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        outside.expectUntouched("--resume")
        #expect(!Self.isLink(trials))
        let rows = try JobsTests.rows(out)
        #expect(rows.map { $0["run"] ?? "" }.sorted() == ["1", "2"], "the kept row and the resumed one: \(rows)")
    }

    /// A `charts` folder that is a link out of the run's folder: chart data lands in the folder's own
    /// `charts/`, for a corpus and for `bench report` alike, and the outside folder stays empty.
    @Test func chartDataLandsInTheFoldersOwnCharts() throws {
        let scratch = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outside = scratch.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let corpus = try CorpusResumeTests.corpus(images: 1, notes: 0, in: scratch)
        let corpusOut = scratch.appendingPathComponent("corpus-out")
        let runOut = scratch.appendingPathComponent("run-out")
        for folder in [corpusOut, runOut] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: folder.appendingPathComponent("charts"),
                withDestinationURL: outside
            )
        }
        let measured = InProcessBench.run(RowKeyTests.corpusRun(corpus, out: corpusOut.path))
        #expect(measured.status == 0, "\(measured.standardError)")
        let run = InProcessBench.run(Self.run + ["--runs", "1", "--out", runOut.path])
        try #require(run.status == 0, "\(run.standardError)")
        let report = InProcessBench.run(["report", "--results", runOut.path])
        #expect(report.status == 0, "\(report.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty, "written through the link")
        for folder in [corpusOut, runOut] {
            #expect(!Self.isLink(folder.appendingPathComponent("charts")))
            #expect(
                !((try? FileManager.default.contentsOfDirectory(
                    atPath: folder.appendingPathComponent("charts/data").path
                )) ?? []).isEmpty
            )
        }
    }
}
