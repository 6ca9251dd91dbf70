import Foundation
import TestSupport
import Testing

/// What a hostile user found: each of these lost or mixed data before its fix. In-process
/// (`InProcessBench`), the measurements with recorded children.
@Suite struct HostileUseTests {
    /// `bench corpus --shard 2/2 --resume` on shard 1/2's folder: refused, naming --shard, so that a folder
    /// holds one shard's rows and `bench merge` counts each row once.
    @Test func corpusResumeRefusesAnotherShard() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = try CorpusResumeTests.corpus(images: 0, notes: 6, in: folder)
        let arguments = [
            "corpus", corpus.path, "--strategy", "download", "--render", "none", "--runs", "1", "--out",
            folder.appendingPathComponent("out").path,
        ]
        let first = InProcessBench.run(arguments + ["--shard", "1/2"])
        #expect(first.status == 3, "text files are not images: \(first.standardError)")
        let rows = try Data(contentsOf: folder.appendingPathComponent("out/corpus.csv"))
        for other in [["--shard", "2/2"], []] {
            let refused = InProcessBench.run(arguments + other + ["--resume"])
            #expect(refused.status == 64, "\(other): \(refused.standardError)")
            #expect(refused.standardError.contains("--shard: 1/2 then"), "\(other): \(refused.standardError)")
            #expect(
                try Data(contentsOf: folder.appendingPathComponent("out/corpus.csv")) == rows,
                "\(other): the rows are left alone"
            )
        }
        let same = InProcessBench.run(arguments + ["--shard", "1/2", "--resume"])
        #expect(same.status == 3 && same.standardError.contains("already in"), "\(same.standardError)")
    }

    /// `bench merge` of one shard of many: the missing shards are counted past the first few, so that
    /// the message stays short whatever n is.
    @Test func mergeNamesAFewMissingShardsAndCountsTheRest() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let s1 = folder.appendingPathComponent("s1").path
        let shard = InProcessBench.run([
            "run", "--strategy", "download", "--render", "none", "--allocator", "system", "--runs", "1",
            "--width", "64", "--height", "64", "--shard", "1/10000", "--out", s1,
        ])
        #expect(shard.status == 0, "\(shard.standardError)")
        let merged = InProcessBench.run(["merge", s1, "--out", folder.appendingPathComponent("merged").path])
        #expect(merged.status == 7, "\(merged.standardError.prefix(500))")
        #expect(
            merged.standardError.contains("2/10000, 3/10000") && merged.standardError.contains("and 9979 more"),
            "\(merged.standardError.prefix(500))"
        )
        #expect(merged.standardError.utf8.count < 1000, "\(merged.standardError.utf8.count) bytes")
    }
}
