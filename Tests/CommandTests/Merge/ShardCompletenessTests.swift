import BenchCore
import Foundation
import TestSupport
import Testing

/// `bench merge` joins only whole shards: a shard stopped by a signal, killed, or still being
/// written lacks rows, and is refused like a missing one (7, naming it and the rows it lacks)
/// unless --partial, which merges it and records what is missing. A shard stopped by a signal or
/// killed is a real `bench` process; the merges and the shards measured to their end run in-process
/// (`InProcessBench`, recorded children).
@Suite(.serialized) struct ShardCompletenessTests {
    /// A corpus of `images` distinct 64x64 JPEGs (fast runs), in `folder`/corpus.
    static func corpus(images: Int, in folder: URL) throws -> URL {
        let corpus = folder.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        for seed in 1...images {
            let made = InProcessBench.run([
                "fixture", "--width", "64", "--height", "64", "--seed", String(seed),
                "--out", corpus.appendingPathComponent("img-\(seed).jpg").path,
            ])
            try #require(made.status == 0, "\(made.standardError)")
        }
        return corpus
    }

    /// 6 images x 2 runs: 12 planned rows, all in shard 1/1.
    static func corpusShard(_ corpus: URL, out: String) -> [String] {
        [
            "corpus", corpus.path, "--strategy", "data", "--render", "none", "--runs", "2", "--shard", "1/1", "--out",
            out,
        ]
    }

    static func json(_ file: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    }

    /// A corpus shard stopped by SIGTERM after some of its 12 rows: merge refuses it (7), naming
    /// the shard and how many rows it lacks, and creates no --out; --partial merges its rows and
    /// records the missing ones in merge.json.
    @Test func aShardStoppedBySIGTERMIsRefusedThenMergedPartially() throws {
        let work = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let corpus = try Self.corpus(images: 6, in: work)
        let bench = try RowsKeptTests.RunningBench(
            Self.corpusShard(corpus, out: "shard"),
            folder: work.appendingPathComponent("run")
        )
        let shard = bench.folder.appendingPathComponent("shard")
        let csv = shard.appendingPathComponent("corpus.csv")
        let deadline = Date().addingTimeInterval(120)
        while CorpusResumeTests.dataLines(csv) < 3 && bench.isRunning && Date() < deadline { usleep(5_000) }
        bench.signal(SIGTERM)
        #expect(bench.wait() == 143, "\(bench.standardError)")
        let rows = try JobsTests.rows(shard, file: "corpus.csv").count
        try #require(rows >= 3 && rows < 12, "stopped after \(rows) of 12 rows: \(bench.standardError)")
        let record = try Self.json(shard.appendingPathComponent("shard.json"))
        #expect(
            record["plannedRows"] as? Int == 12 && record["completedRows"] as? Int == rows
                && record["ended"] as? String == "SIGTERM",
            "\(record)"
        )

        let out = work.appendingPathComponent("merged")
        let refused = InProcessBench.run(["merge", shard.path, "--out", out.path])
        #expect(refused.status == 7, "\(refused.standardError)")
        let named =
            "shard 1/1 (\(shard.path)) is incomplete: "
            + "\(12 - rows) of 12 planned rows missing (stopped by SIGTERM)"
        #expect(refused.standardError.contains(named), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: out.path), "a refused merge creates no --out")

        let partial = InProcessBench.run(["merge", shard.path, "--out", out.path, "--partial"])
        #expect(partial.status == 0, "\(partial.standardError)")
        #expect(partial.standardError.contains("lack \(12 - rows) rows"), "\(partial.standardError)")
        #expect(try JobsTests.rows(out, file: "corpus.csv").count == rows)
        let merge = try Self.json(out.appendingPathComponent("merge.json"))
        #expect(merge["missingRows"] as? Int == 12 - rows, "\(merge)")
        let incomplete = try #require(merge["incompleteShards"] as? [[String: Any]])
        #expect(
            incomplete.count == 1 && incomplete.first?["shard"] as? String == "1/1"
                && incomplete.first?["missingRows"] as? Int == 12 - rows,
            "\(incomplete)"
        )
    }

    /// A corpus shard still being written (its folder locked by the live run), then killed by
    /// SIGKILL: refused both times (7) with what it lacks, and no --out is created. Resumed to its
    /// end, its shard.json says so and the merge is whole.
    @Test func aLiveThenKilledShardIsRefusedUntilResumed() throws {
        let work = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let corpus = try Self.corpus(images: 6, in: work)
        let arguments = Self.corpusShard(corpus, out: "shard")
        let bench = try RowsKeptTests.RunningBench(arguments, folder: work.appendingPathComponent("run"))
        let shard = bench.folder.appendingPathComponent("shard")
        let csv = shard.appendingPathComponent("corpus.csv")
        let deadline = Date().addingTimeInterval(120)
        while CorpusResumeTests.dataLines(csv) < 2 && bench.isRunning && Date() < deadline { usleep(5_000) }
        let out = work.appendingPathComponent("merged")
        let live = InProcessBench.run(["merge", shard.path, "--out", out.path])
        let stillRunning = bench.isRunning
        HoldersKeptTests.killWithChildren(bench)
        try #require(stillRunning, "the shard finished before the merge: \(bench.standardError)")
        #expect(live.status == 7, "\(live.standardError)")
        #expect(
            live.standardError.contains("shard 1/1 (\(shard.path)) is incomplete")
                && live.standardError.contains("a live bench run (pid \(bench.pid)) is still writing it"),
            "\(live.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: out.path), "a refused merge creates no --out")

        let rows = try JobsTests.rows(shard, file: "corpus.csv").count
        let killed = InProcessBench.run(["merge", shard.path, "--out", out.path])
        #expect(killed.status == 7, "\(killed.standardError)")
        #expect(
            killed.standardError.contains("\(12 - rows) of 12 planned rows missing (it never recorded an end"),
            "\(killed.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: out.path), "a refused merge creates no --out")

        let resumed = try BenchProcess.run(arguments + ["--resume"], workingDirectory: bench.folder)
        #expect(resumed.status == 0, "\(resumed.standardError)")
        let record = try Self.json(shard.appendingPathComponent("shard.json"))
        #expect(
            record["plannedRows"] as? Int == 12 && record["completedRows"] as? Int == 12
                && record["ended"] as? String == "finished",
            "\(record)"
        )
        let merged = InProcessBench.run(["merge", shard.path, "--out", out.path])
        #expect(merged.status == 0, "\(merged.standardError)")
        #expect(try JobsTests.rows(out, file: "corpus.csv").count == 12)
    }

    /// A shard whose corpus.csv ends in a torn line: the line is dropped with a note (as every
    /// reader of an appended file does), and the shard then lacks that row (7, 1 missing).
    @Test func aTornLastLineIsDroppedAndTheShardLacksItsRow() throws {
        let work = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let corpus = try Self.corpus(images: 2, in: work)
        let shard = work.appendingPathComponent("shard")
        let measured = InProcessBench.run([
            "corpus", corpus.path, "--strategy", "data", "--render", "none",
            "--runs", "1",
            "--shard", "1/1", "--out", shard.path,
        ])
        try #require(measured.status == 0, "\(measured.standardError)")
        // The last row cut in the middle, as a kill during its write leaves it.
        let csv = shard.appendingPathComponent("corpus.csv")
        var text = try String(contentsOf: csv, encoding: .utf8)
        text.removeLast(10)
        try Data(text.utf8).write(to: csv)
        let out = work.appendingPathComponent("merged")
        let merge = InProcessBench.run(["merge", shard.path, "--out", out.path])
        #expect(merge.status == 7, "\(merge.standardError)")
        #expect(merge.standardError.contains("the last line of \(csv.path) is cut short"), "\(merge.standardError)")
        #expect(merge.standardError.contains("1 of 2 planned rows missing"), "\(merge.standardError)")
    }

    /// A run shard and a corpus shard, both 1/1: the refusal names each folder's kind, and never
    /// calls them one shard "in 2 folders".
    @Test func aFolderOfTheOtherKindIsNamedAsSuch() throws {
        let work = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let corpus = try Self.corpus(images: 1, in: work)
        let corpusShard = work.appendingPathComponent("corpus-shard")
        let runShard = work.appendingPathComponent("run-shard")
        let measured = InProcessBench.run([
            "corpus", corpus.path, "--strategy", "data", "--render", "none",
            "--runs", "1",
            "--shard", "1/1", "--out", corpusShard.path,
        ])
        try #require(measured.status == 0, "\(measured.standardError)")
        let ran = InProcessBench.run([
            "run", "--strategy", "data", "--render", "none", "--allocator", "system",
            "--runs", "1",
            "--width", "64", "--height", "64", "--shard", "1/1", "--out", runShard.path,
        ])
        try #require(ran.status == 0, "\(ran.standardError)")
        let merge = InProcessBench.run([
            "merge", runShard.path, corpusShard.path,
            "--out", work.appendingPathComponent("merged").path,
        ])
        #expect(merge.status == 6, "\(merge.standardError)")
        #expect(
            merge.standardError.contains("a corpus folder") && merge.standardError.contains("a run folder"),
            "\(merge.standardError)"
        )
        #expect(!merge.standardError.contains("in 2 folders"), "\(merge.standardError)")
    }
}
