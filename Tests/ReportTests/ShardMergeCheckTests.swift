import BenchCore
import Foundation
import Report
import Testing

/// `ShardMerge.missingShards`: shard records that do not join are refused, each difference named;
/// those that do give the shards missing from the cover.
struct ShardMergeCheckTests {
    static func folder(
        _ index: Int,
        of count: Int,
        _ change: (inout ShardRecord) -> Void = { _ in }
    ) throws -> ShardFolder {
        var record = ShardRecord(
            kind: .corpus,
            shard: Shard(index: index, count: count)!,
            runID: "run-\(index)",
            settings: ["--runs": "3", "--render": "full"],
            corpusEntries: 10,
            corpusDigest: "abc",
            environment: ["GITHUB_SHA": "1111"]
        )
        change(&record)
        return try ShardFolder(path: "shard-\(index)", record: record)
    }

    static func refusal(_ folders: [ShardFolder]) -> String? {
        do {
            _ = try ShardMerge.missingShards(folders)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aFullCoverJoinsAndAPartOneNamesWhatIsMissing() throws {
        #expect(try ShardMerge.missingShards((1...4).map { try Self.folder($0, of: 4) }) == [])
        #expect(try ShardMerge.missingShards([Self.folder(3, of: 4), Self.folder(1, of: 4)]) == [2, 4])
        #expect(try ShardMerge.missingShards([Self.folder(1, of: 1)]) == [])
    }

    @Test func everyDifferenceIsNamed() throws {
        let cases: [(change: (inout ShardRecord) -> Void, named: String)] = [
            (
                { $0.settings["--runs"] = "5" },
                "shard 2/2 (shard-2) was run with --runs 5, shard 1/2 (shard-1) with --runs 3"
            ),
            (
                { $0.settings["--max-pixel"] = "512" },
                "was run with --max-pixel 512, shard 1/2 (shard-1) with --max-pixel (not given)"
            ),
            (
                { $0.harness = "bench results 2" },
                "was measured by bench results 2, shard 1/2 (shard-1) by bench results 1"
            ),
            ({ $0.commit = "2222" }, "was built from commit 2222, shard 1/2 (shard-1) from 1111"),
            ({ $0.libraries["libheif"] = "1.17" }, "has libheif 1.17, shard 1/2 (shard-1)"),
            (
                { $0.corpusDigest = "abd" },
                "measured a corpus of 10 entries (digest abd), shard 1/2 (shard-1) one of 10 entries (digest abc)"
            ),
            ({ $0.kind = .run }, "is a run folder, shard 1/2 (shard-1) a corpus folder"),
        ]
        for (change, named) in cases {
            let message = Self.refusal([try Self.folder(1, of: 2), try Self.folder(2, of: 2, change)])
            #expect(message?.contains(named) == true, "expected '\(named)' in \(message ?? "no refusal")")
        }
        // One shard with a commit and one without share no name for their binary: refused.
        let mix = Self.refusal([try Self.folder(1, of: 2), try Self.folder(2, of: 2) { $0.commit = nil }])
        #expect(
            mix?.contains("shard 2/2 (shard-2) records no commit, shard 1/2 (shard-1) records commit 1111") == true,
            "\(mix ?? "")"
        )
        // Without commits, the binaries' build IDs decide; one settings value left out shows as not given.
        let noCommit: (inout ShardRecord) -> Void = {
            $0.commit = nil
            $0.build = "aaaa"
            $0.settings["--bandwidth"] = ""
        }
        #expect(Self.refusal([try Self.folder(1, of: 2, noCommit), try Self.folder(2, of: 2, noCommit)]) == nil)
        let builds = Self.refusal([
            try Self.folder(1, of: 2, noCommit),
            try Self.folder(2, of: 2) {
                noCommit(&$0)
                $0.build = "bbbb"
                $0.settings["--bandwidth"] = "20000000"
            },
        ])
        #expect(
            builds?.contains(
                "shard 2/2 (shard-2) was measured by the bench binary with build ID bbbb, shard 1/2 (shard-1) by build ID aaaa"
            ) == true,
            "\(builds ?? "")"
        )
        #expect(
            builds?.contains("was run with --bandwidth 20000000, shard 1/2 (shard-1) with --bandwidth (not given)")
                == true,
            "\(builds ?? "")"
        )
        // The running test binary has a build ID, as bench has: shards record it.
        #expect(try Self.folder(1, of: 1).record.build?.count == 40)
        let counts = Self.refusal([try Self.folder(1, of: 2), try Self.folder(2, of: 3)])
        #expect(
            counts?.contains("shard 2/3 (shard-2) is one of 3 shards, shard 1/2 (shard-1) one of 2") == true,
            "\(counts ?? "")"
        )
        let twice = Self.refusal([
            try Self.folder(1, of: 2), try Self.folder(2, of: 2),
            try ShardFolder(path: "again", record: Self.folder(2, of: 2).record),
        ])
        #expect(twice?.contains("shard 2/2 is in 2 folders (shard-2, again)") == true, "\(twice ?? "")")
    }
}
