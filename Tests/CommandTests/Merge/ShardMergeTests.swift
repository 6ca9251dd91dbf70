import BenchCore
import Foundation
import TestSupport
import Testing

/// `--shard i/n` and `bench merge`, in-process (`InProcessBench`, the children recorded ones): shards of
/// one corpus (and of one matrix) merged give the unsharded run's rows, and merge refuses what does not join.
@Suite struct ShardMergeTests {
    /// Seven small images (distinct bytes, one PNG), a copy of one under another name, and a text file.
    static func makeCorpus() throws -> URL {
        let folder = TestFolder.temporary()
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("sub"),
            withIntermediateDirectories: true
        )
        for seed in 1...7 {
            let name = seed == 7 ? "sub/g.png" : "img-\(seed).jpg"
            let made = InProcessBench.run(
                [
                    "fixture", "--width", "64", "--height", "48", "--seed", String(seed),
                    "--out", folder.appendingPathComponent(name).path,
                ] + (seed == 7 ? ["--encoding", "png-rgb"] : [])
            )
            try #require(made.status == 0, "\(made.standardError)")
        }
        try FileManager.default.copyItem(
            at: folder.appendingPathComponent("img-1.jpg"),
            to: folder.appendingPathComponent("sub/copy-of-1.jpg")
        )
        try Data("not an image\n".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        return folder
    }

    static let corpusOptions = ["--strategy", "data", "--render", "none", "--runs", "1"]

    /// file/strategy/render/allocator/run/status of every row: what must be the same, measured values aside.
    static func keys(_ folder: URL, file: String) throws -> [String] {
        try JobsTests.rows(folder, file: file).map { row in
            ["file", "strategy", "render", "allocator", "run", "status"].map { row[$0] ?? "" }.joined(separator: "|")
        }.sorted()
    }

    static func corpus(
        _ source: URL,
        shard: String?,
        out: URL,
        extra: [String] = []
    ) -> CommandOutput {
        InProcessBench.run(
            ["corpus", source.path] + corpusOptions + extra + (shard.map { ["--shard", $0] } ?? []) + [
                "--out", out.path,
            ]
        )
    }

    /// A new corpus measured as shards 1/2 and 2/2 in work/first and work/second, the second with
    /// `secondOptions` added, handed to `body`; removed after it.
    static func withTwoShards(
        secondOptions: [String] = [],
        _ body: (_ corpus: URL, _ work: URL, _ first: URL, _ second: URL) throws -> Void
    ) throws {
        let corpus = try makeCorpus()
        let work = TestFolder.temporary()
        defer {
            try? FileManager.default.removeItem(at: corpus)
            try? FileManager.default.removeItem(at: work)
        }
        let first = work.appendingPathComponent("first")
        let second = work.appendingPathComponent("second")
        #expect([0, 3].contains(Self.corpus(corpus, shard: "1/2", out: first).status))
        let secondRun = Self.corpus(corpus, shard: "2/2", out: second, extra: secondOptions)
        #expect([0, 3].contains(secondRun.status), "\(secondRun.standardError)")
        try body(corpus, work, first, second)
    }

    /// Two and four corpus shards, each measured on its own, merged: the rows of the unsharded run,
    /// each file in exactly one shard.
    @Test(arguments: [2, 4]) func shardsOfACorpusMergeIntoTheUnshardedRows(count: Int) throws {
        let corpus = try Self.makeCorpus()
        let work = TestFolder.temporary()
        defer {
            try? FileManager.default.removeItem(at: corpus)
            try? FileManager.default.removeItem(at: work)
        }
        let whole = work.appendingPathComponent("whole")
        let unsharded = Self.corpus(corpus, shard: nil, out: whole)
        #expect(unsharded.status == 3, "the text file is a not_an_image row: \(unsharded.standardError)")
        let expected = try Self.keys(whole, file: "corpus.csv")
        #expect(expected.count == 9, "\(expected)")

        var folders: [String] = []
        var filesSeen: [String] = []
        var shardOf: [String: Int] = [:]
        for index in 1...count {
            let folder = work.appendingPathComponent("shard-\(index)")
            let output = Self.corpus(corpus, shard: "\(index)/\(count)", out: folder)
            #expect([0, 3].contains(output.status), "shard \(index)/\(count): \(output.standardError)")
            let files = try JobsTests.rows(folder, file: "corpus.csv").map { $0["file"]! }
            filesSeen += files
            for file in files { shardOf[file] = index }
            let record = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("shard.json")))
                    as? [String: Any]
            )
            #expect(record["shard"] as? String == "\(index)/\(count)")
            #expect((record["machine"] as? String)?.isEmpty == false)
            folders.append(folder.path)
        }
        #expect(
            filesSeen.sorted()
                == expected.map { String($0.split(separator: "|", omittingEmptySubsequences: false)[0]) }.sorted(),
            "every file in exactly one shard"
        )
        #expect(
            shardOf["img-1.jpg"] != nil && shardOf["img-1.jpg"] == shardOf["sub/copy-of-1.jpg"],
            "the same bytes, the same shard: \(shardOf)"
        )
        let merged = work.appendingPathComponent("merged")
        let merge = InProcessBench.run(["merge"] + folders.reversed() + ["--out", merged.path])
        #expect(merge.status == 0, "\(merge.standardError)")
        #expect(try Self.keys(merged, file: "corpus.csv") == expected)
        let rows = try JobsTests.rows(merged, file: "corpus.csv")
        #expect(rows.allSatisfy { $0["machine"]?.isEmpty == false }, "every row names its machine")
        let summary = try JobsTests.rows(merged, file: "corpus-summary.csv")
        let wholeSummary = try JobsTests.rows(whole, file: "corpus-summary.csv")
        #expect(Set(summary.map { $0["file"]! }) == Set(wholeSummary.map { $0["file"]! }))
        #expect(summary.count == 8, "every image ranked once: \(summary.map { $0["file"]! })")
        #expect(FileManager.default.fileExists(atPath: merged.appendingPathComponent("charts/data/corpus.dat").path))
    }

    /// The matrix split by cell over three shards, merged: `bench compare` with the unsharded run
    /// passes (every cell there, same payload), and the rows are the same.
    @Test func shardsOfAMatrixMergeAndCompareWithTheUnshardedRun() throws {
        let work = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: work) }
        let matrix = [
            "run", "--strategy", "data", "--strategy", "download", "--strategy", "curl-file",
            "--render", "none", "--render", "full", "--allocator", "system",
            "--runs", "2", "--width", "320", "--height", "240",
        ]
        let whole = work.appendingPathComponent("whole")
        let unsharded = InProcessBench.run(matrix + ["--out", whole.path])
        try #require(unsharded.status == 0, "\(unsharded.standardError)")
        var folders: [String] = []
        var cells: [Set<String>] = []
        for index in 1...3 {
            let folder = work.appendingPathComponent("shard-\(index)")
            let output = InProcessBench.run(matrix + ["--shard", "\(index)/3", "--out", folder.path])
            #expect(output.status == 0, "\(output.standardError)")
            cells.append(Set(try JobsTests.rows(folder).map { "\($0["strategy"]!)/\($0["render"]!)" }))
            let context = try #require(
                (try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("trials.json")))
                    as? [String: Any])?["context"] as? [String: Any]
            )
            #expect(context["shard"] as? String == "\(index)/3")
            folders.append(folder.path)
        }
        #expect(
            cells.map(\.count).reduce(0, +) == 6 && cells.reduce(Set<String>()) { $0.union($1) }.count == 6,
            "each of the 6 cells in exactly one shard: \(cells)"
        )
        let merged = work.appendingPathComponent("merged")
        let merge = InProcessBench.run(["merge"] + folders + ["--out", merged.path])
        try #require(merge.status == 0, "\(merge.standardError)")
        func keys(_ folder: URL) throws -> [String] {
            try JobsTests.rows(folder).map { row in
                ["strategy", "render", "allocator", "run", "status"].map { row[$0]! }.joined(separator: "|")
            }.sorted()
        }
        #expect(try keys(merged) == keys(whole))
        #expect(try JobsTests.rows(merged).allSatisfy { $0["machine"]?.isEmpty == false })
        for file in ["summary.csv", "timeline.csv", "holders.csv", "REPORT.md", "environment.txt", "merge.json"] {
            #expect(FileManager.default.fileExists(atPath: merged.appendingPathComponent(file).path), "\(file)")
        }
        let compare = InProcessBench.run([
            "compare", whole.appendingPathComponent("trials.json").path,
            merged.appendingPathComponent("trials.json").path,
            "--thresholds", CompareCommandTests.thresholdsFile,
        ])
        #expect(compare.status == 0, "\(compare.standardOutput)\(compare.standardError)")
        let report = InProcessBench.run(["report", "--results", merged.path, "--no-report"])
        #expect(report.status == 0, "bench report reads the merged folder: \(report.standardError)")
    }

    /// Shards run with other settings, a shard given twice, a missing shard: merge refuses each with
    /// the difference named and a distinct status; --partial merges what there is.
    @Test func mergeRefusesShardsThatDoNotJoin() throws {
        try Self.withTwoShards(secondOptions: ["--max-pixel", "512"]) { corpus, work, first, second in
            let out = work.appendingPathComponent("merged")

            let mixed = InProcessBench.run(["merge", first.path, second.path, "--out", out.path])
            #expect(mixed.status == 6, "\(mixed.standardError)")
            #expect(
                mixed.standardError.contains(
                    "shard 2/2 (\(second.path)) was run with --max-pixel 512, shard 1/2 (\(first.path)) with --max-pixel 1024"
                ),
                "\(mixed.standardError)"
            )
            #expect(
                !FileManager.default.fileExists(atPath: out.appendingPathComponent("corpus.csv").path),
                "nothing written"
            )

            let twice = InProcessBench.run(["merge", first.path, first.path + "/", "--out", out.path])
            #expect(
                twice.status == 6 && twice.standardError.contains("shard 1/2 is in 2 folders"),
                "\(twice.standardError)"
            )

            let missing = InProcessBench.run(["merge", first.path, "--out", out.path])
            #expect(
                missing.status == 7 && missing.standardError.contains("shard 2/2 missing"),
                "\(missing.standardError)"
            )
            #expect(
                !FileManager.default.fileExists(atPath: out.appendingPathComponent("corpus.csv").path),
                "nothing written"
            )

            let partial = InProcessBench.run(["merge", first.path, "--out", out.path, "--partial"])
            #expect(
                partial.status == 0 && partial.standardError.contains("warning: shard 2/2 missing"),
                "\(partial.standardError)"
            )
            let merged = try JobsTests.rows(out, file: "corpus.csv").count
            #expect(merged == (try JobsTests.rows(first, file: "corpus.csv").count))

            let unsharded = work.appendingPathComponent("unsharded")
            _ = Self.corpus(corpus, shard: nil, out: unsharded)
            let notShard = InProcessBench.run([
                "merge", first.path, unsharded.path, "--out", work.appendingPathComponent("m2").path,
            ])
            #expect(
                notShard.status == 65 && notShard.standardError.contains("has no shard.json"),
                "\(notShard.standardError)"
            )
        }
    }

    /// Shards measured with the settle's two modes (--settle fixed in one, recorded as BENCH_SETTLE) are
    /// refused by merge, naming the setting: the final readings of the two are not comparable.
    @Test func mergeRefusesShardsOfAnotherSettle() throws {
        try Self.withTwoShards(secondOptions: ["--settle", "fixed"]) {
            _,
            work,
            first,
            second in
            let out = work.appendingPathComponent("merged")
            let mixed = InProcessBench.run(["merge", first.path, second.path, "--out", out.path])
            #expect(mixed.status == 6, "\(mixed.standardError)")
            #expect(
                mixed.standardError.contains("\(TrialSpec.settleEnvironmentVariable) fixed"),
                "\(mixed.standardError)"
            )
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("corpus.csv").path))
        }
    }

    /// Each malformed i/n is a usage error (64) that states the form --shard takes.
    @Test(arguments: ["0/4", "5/4", "1/0", "0/0", "-1/4", "2/", "/4", "2/4/1", "a/b", "2:4", " 2/4", "+2/4", "2"])
    func malformedShardsAreUsageErrors(text: String) {
        for command in ["run", "corpus"] {
            let output = InProcessBench.parse(
                [command] + (command == "corpus" ? ["/nonexistent"] : []) + ["--shard=\(text)"]
            )
            #expect(output.status == 64, "\(command) --shard '\(text)': \(output.standardError)")
            #expect(
                output.standardError.contains("--shard takes i/n with 1 <= i <= n, e.g. 2/4"),
                "\(output.standardError)"
            )
        }
    }
}

extension ShardMergeTests {
    /// One shard of one, merged: its corpus.csv and corpus-summary.csv again, value
    /// for value (the reader loses nothing the writer wrote), with the machine column added.
    @Test func aMergedShardKeepsEveryValue() throws {
        let corpus = try Self.makeCorpus()
        let work = TestFolder.temporary()
        defer {
            try? FileManager.default.removeItem(at: corpus)
            try? FileManager.default.removeItem(at: work)
        }
        let shard = work.appendingPathComponent("shard")
        let merged = work.appendingPathComponent("merged")
        // Real children: the summary's payload is the image's, which a recorded child does not report.
        let measured = try BenchProcess.run(
            ["corpus", corpus.path] + Self.corpusOptions + [
                "--render", "thumbnail", "--shard", "1/1", "--out", shard.path,
            ]
        )
        #expect(measured.status == 3, "\(measured.standardError)")
        let merge = InProcessBench.run(["merge", shard.path, "--out", merged.path])
        try #require(merge.status == 0, "\(merge.standardError)")
        for file in ["corpus.csv", "corpus-summary.csv"] {
            let before = try JobsTests.rows(shard, file: file)
            let after = try JobsTests.rows(merged, file: file)
            #expect(before.count == after.count && !before.isEmpty, "\(file)")
            for (old, new) in zip(before, after) {
                var kept = new
                kept["machine"] = nil
                kept["run_id"] = old["run_id"]
                #expect(kept == old, "\(file): \(old) became \(new)")
            }
        }
        #expect(
            try String(contentsOf: merged.appendingPathComponent("charts/data/corpus.dat"), encoding: .utf8)
                == String(contentsOf: shard.appendingPathComponent("charts/data/corpus.dat"), encoding: .utf8)
        )
    }
}

extension ShardMergeTests {
    /// A shard that no cell drew merges like any other: one cell over two shards, one of them measures
    /// nothing, and the merge is the one cell.
    @Test func aShardWithNoCellMerges() throws {
        let work = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: work) }
        let matrix = [
            "run", "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "1", "--width", "64",
            "--height", "48",
        ]
        var sizes: [Int] = []
        for index in 1...2 {
            let output = InProcessBench.run(
                matrix + ["--shard", "\(index)/2", "--out", work.appendingPathComponent("s\(index)").path]
            )
            #expect(output.status == 0, "\(output.standardError)")
            sizes.append(try JobsTests.rows(work.appendingPathComponent("s\(index)")).count)
        }
        #expect(sizes.sorted() == [0, 1], "\(sizes)")
        let merged = work.appendingPathComponent("merged")
        let merge = InProcessBench.run([
            "merge", work.appendingPathComponent("s1").path, work.appendingPathComponent("s2").path, "--out",
            merged.path,
        ])
        #expect(merge.status == 0, "\(merge.standardError)")
        #expect(try JobsTests.rows(merged).count == 1)
    }
}
