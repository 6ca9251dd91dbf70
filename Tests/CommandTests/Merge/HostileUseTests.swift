import Foundation
import TestSupport
import Testing

/// What a hostile user found: each of these lost or mixed data before its fix.
@Suite(.serialized) struct HostileUseTests {

    /// `bench report` on a copy of the committed reference with --no-report: refused (its REPORT.md has
    /// figures only bench-reference computes), and nothing written: its charts/data keeps every file.
    @Test func reportRefusesTheCommittedReferenceBeforeWritingAnything() throws {
        let folder = BenchProcess.temporaryFolder().appendingPathComponent("results")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(
            at: folder.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("results"), to: folder)
        let data = folder.appendingPathComponent("charts/data")
        let before = try FileManager.default.contentsOfDirectory(atPath: data.path).sorted()
        for extra in [
            ["--no-report"],
            ["--report-file", folder.deletingLastPathComponent().appendingPathComponent("elsewhere.md").path], [],
        ] {
            let output = try BenchProcess.run(["report", "--results", folder.path] + extra)
            #expect(output.status == 65, "\(extra): \(output.standardError)")
            #expect(
                output.standardError.contains("REPORT.md") && output.standardError.contains("make reference"),
                "the message names the document and what regenerates it: \(output.standardError)"
            )
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == before,
                "\(extra): nothing removed"
            )
        }
    }

    /// `bench corpus --shard 2/2 --resume` on shard 1/2's folder: refused, naming --shard, so that a folder
    /// holds one shard's rows and `bench merge` counts each row once.
    @Test func corpusResumeRefusesAnotherShard() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = try CorpusResumeTests.corpus(images: 0, notes: 6, in: folder)
        let arguments = [
            "corpus", corpus.path, "--strategy", "download", "--render", "none", "--runs", "1", "--out", "out",
        ]
        let first = try BenchProcess.run(arguments + ["--shard", "1/2"], workingDirectory: folder)
        #expect(first.status == 3, "text files are not images: \(first.standardError)")
        let rows = try Data(contentsOf: folder.appendingPathComponent("out/corpus.csv"))
        for other in [["--shard", "2/2"], []] {
            let refused = try BenchProcess.run(arguments + other + ["--resume"], workingDirectory: folder)
            #expect(refused.status == 64, "\(other): \(refused.standardError)")
            #expect(refused.standardError.contains("--shard: 1/2 then"), "\(other): \(refused.standardError)")
            #expect(
                try Data(contentsOf: folder.appendingPathComponent("out/corpus.csv")) == rows,
                "\(other): the rows are left alone"
            )
        }
        let same = try BenchProcess.run(arguments + ["--shard", "1/2", "--resume"], workingDirectory: folder)
        #expect(same.status == 3 && same.standardError.contains("already in"), "\(same.standardError)")
    }

    /// `bench merge` of one shard of many: the missing shards are counted past the first few, so that
    /// the message stays short whatever n is.
    @Test func mergeNamesAFewMissingShardsAndCountsTheRest() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let shard = try BenchProcess.run(
            [
                "run", "--strategy", "download", "--render", "none", "--allocator", "system", "--runs", "1",
                "--width", "64", "--height", "64", "--shard", "1/10000", "--out", "s1",
            ],
            workingDirectory: folder
        )
        #expect(shard.status == 0, "\(shard.standardError)")
        let merged = try BenchProcess.run(["merge", "s1", "--out", "merged"], workingDirectory: folder)
        #expect(merged.status == 7, "\(merged.standardError.prefix(500))")
        #expect(
            merged.standardError.contains("2/10000, 3/10000") && merged.standardError.contains("and 9979 more"),
            "\(merged.standardError.prefix(500))"
        )
        #expect(merged.standardError.utf8.count < 1000, "\(merged.standardError.utf8.count) bytes")
    }
}
