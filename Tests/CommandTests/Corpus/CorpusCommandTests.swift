import BenchCore
import Foundation
import LoopbackServer
import Report
import TestSupport
import Testing

/// `bench corpus` over real files made here: generated JPEGs (baseline and progressive), a cut
/// JPEG, a text file; and over a URL list against a real loopback server.
@Suite(.serialized) struct CorpusCommandTests {
    /// A folder with a.jpg (baseline 1200x800), sub/b.jpg (progressive 1200x800), cut.jpg (a.jpg's
    /// first 3000 bytes), notes.txt, and a hidden file that is skipped.
    static func makeCorpus() throws -> URL {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("sub"),
            withIntermediateDirectories: true
        )
        for (name, extra) in [("a.jpg", [String]()), ("sub/b.jpg", ["--progressive"])] {
            let made = InProcessBench.run(
                ["fixture", "--width", "1200", "--height", "800", "--out", folder.appendingPathComponent(name).path]
                    + extra
            )
            try #require(made.status == 0, "\(made.standardError)")
        }
        let baseline = try Data(contentsOf: folder.appendingPathComponent("a.jpg"))
        try baseline.prefix(3000).write(to: folder.appendingPathComponent("cut.jpg"))
        try Data("shopping list\n".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try baseline.write(to: folder.appendingPathComponent(".hidden.jpg"))
        return folder
    }

    @Test func aFolderGivesARowPerRunAndOneForTheNonImage() throws {
        let corpus = try Self.makeCorpus()
        defer { try? FileManager.default.removeItem(at: corpus) }
        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let output = try BenchProcess.run(["corpus", corpus.path, "--runs", "2", "--out", out.path])
        #expect(output.status == 3, "a corrupt file and a non-image make it 3: \(output.standardError)")
        let rows = try JobsTests.rows(out, file: "corpus.csv")
        let byFile = Dictionary(grouping: rows, by: { $0["file"]! })
        #expect(Set(byFile.keys) == ["a.jpg", "sub/b.jpg", "cut.jpg", "notes.txt"], "hidden files skipped")
        // Defaults: download; full and thumbnail; system; 2 runs each.
        for file in ["a.jpg", "sub/b.jpg"] {
            let runs = try #require(byFile[file])
            #expect(runs.count == 4)
            #expect(
                runs.allSatisfy { $0["status"] == "ok" && $0["strategy"] == "download" && $0["allocator"] == "system" }
            )
            #expect(Set(runs.map { $0["render"]! }) == ["full", "thumbnail"])
            #expect(
                runs.allSatisfy {
                    $0["width"] == "1200" && $0["height"] == "800" && $0["format"] == "jpeg"
                        && $0["chroma_subsampling"] == "4:2:0"
                }
            )
        }
        #expect(byFile["sub/b.jpg"]!.allSatisfy { $0["progressive"] == "1" })
        #expect(byFile["a.jpg"]!.allSatisfy { $0["progressive"] == "0" })
        #expect(byFile["cut.jpg"]!.count == 4)
        #expect(byFile["cut.jpg"]!.allSatisfy { $0["status"] == "decode_error" && $0["error"]!.contains("JPEG") })
        let notes = try #require(byFile["notes.txt"]?.first)
        #expect(byFile["notes.txt"]!.count == 1)
        #expect(notes["status"] == "not_an_image" && notes["error"]!.contains("expected one of JPEG"), "\(notes)")
        // The progressive image holds its coefficients besides the bitmap: it costs more per pixel,
        // and less than twice as much (a bitmap is 4 bytes a pixel, the coefficients 3 at 4:2:0).
        let summary = try JobsTests.rows(out, file: "corpus-summary.csv")
        #expect(summary.first?["file"] == "sub/b.jpg", "the worst per pixel first: \(summary)")
        let perPixel = Dictionary(
            uniqueKeysWithValues: summary.map { ($0["file"]!, Double($0["full_bytes_per_pixel"]!) ?? 0) }
        )
        let ratio = perPixel["sub/b.jpg"]! / perPixel["a.jpg"]!
        #expect(ratio > 1.3 && ratio < 2.5, "progressive over baseline, per pixel: \(ratio)")
        #expect(output.standardOutput.contains("worst per pixel (full): sub/b.jpg"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("charts/data/corpus.dat").path))
    }

    /// `corpus --jobs 2` gives the rows of a serial corpus run, each from its own child.
    @Test func twoJobsGiveTheSameRows() throws {
        let corpus = try Self.makeCorpus()
        defer { try? FileManager.default.removeItem(at: corpus) }
        var keys: [Int: [String]] = [:]
        for jobs in [1, 2] {
            let out = BenchProcess.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: out) }
            let output = try BenchProcess.run([
                "corpus", corpus.path, "--runs", "2", "--strategy", "download", "--strategy", "data",
                "--jobs", String(jobs), "--out", out.path,
            ])
            #expect(output.status == 3, "\(output.standardError)")
            let rows = try JobsTests.rows(out, file: "corpus.csv")
            keys[jobs] = rows.map { row in
                ["file", "strategy", "render", "allocator", "run", "status"].map { row[$0]! }.joined(separator: "/")
            }.sorted()
            let pids = rows.compactMap { $0["pid"] }.filter { !$0.isEmpty }
            #expect(Set(pids).count == pids.count && pids.count == 24, "one child per run: \(pids.count)")
        }
        #expect(keys[1]?.count == 25)
        #expect(keys[1] == keys[2])
    }

    /// A URL list against a real loopback server: an image and a missing path (404 rows).
    @Test func aURLListIsMeasuredThroughItsServer() throws {
        let corpus = try Self.makeCorpus()
        defer { try? FileManager.default.removeItem(at: corpus) }
        let server = LoopbackServer()
        server.addResource(path: "/a.jpg", body: try Data(contentsOf: corpus.appendingPathComponent("a.jpg")))
        try server.start()
        defer { server.shutdown() }
        let list = corpus.appendingPathComponent("urls.txt")
        try Data(
            "# two images\n\(server.url(for: "/a.jpg").absoluteString)\n\n\(server.url(for: "/gone.jpg").absoluteString)\n"
                .utf8
        ).write(to: list)
        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let output = try BenchProcess.run(["corpus", list.path, "--runs", "1", "--render", "full", "--out", out.path])
        #expect(output.status == 3, "\(output.standardError)")
        let rows = try JobsTests.rows(out, file: "corpus.csv")
        #expect(rows.count == 2)
        let image = try #require(rows.first { $0["file"]!.hasSuffix("/a.jpg") })
        #expect(image["status"] == "ok" && image["width"] == "1200" && image["render"] == "full")
        let gone = try #require(rows.first { $0["file"]!.hasSuffix("/gone.jpg") })
        #expect(gone["status"] == "fetch_error", "\(gone)")
    }

    /// In-process (`InProcessBench`): each is refused before any child.
    @Test func badSourcesHaveTheirOwnStatus() throws {
        let empty = TestFolder.temporary()
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }

        let missing = InProcessBench.run(["corpus", empty.appendingPathComponent("nope").path])
        #expect(missing.status == 66)
        #expect(missing.standardError.contains("does not exist"))

        let nothing = InProcessBench.run(["corpus", empty.path])
        #expect(nothing.status == 66)
        #expect(nothing.standardError.contains("has no files"))

        let list = empty.appendingPathComponent("urls.txt")
        try Data("http://127.0.0.1:1/a.jpg\nhttp://example.com/b.jpg\nnot a url\nftp://127.0.0.1/c.jpg\n".utf8).write(
            to: list
        )
        let badList = InProcessBench.run(["corpus", list.path])
        #expect(badList.status == 64)
        for line in ["line 2: 'example.com' is not a loopback host", "line 3:", "line 4:"] {
            #expect(badList.standardError.contains(line), "\(line): \(badList.standardError)")
        }
        #expect(!badList.standardError.contains("line 1:"))

        let badOption = InProcessBench.run(["corpus", empty.path, "--render", "sideways"])
        #expect(badOption.status == 64)
    }
}
