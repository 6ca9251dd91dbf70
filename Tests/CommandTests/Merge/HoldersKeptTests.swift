import BenchCore
import Foundation
import TestSupport
import Testing

/// Who holds each run's peak, and what its RSS is made of, is measured once: a run stopped at any
/// moment, resumed, or merged from shards holds the holders and the residency of every run it
/// measured, as an uninterrupted run does. Real
/// `bench` processes and SIGKILL.
@Suite(.serialized) struct HoldersKeptTests {
    /// One cell that decodes a 320x240 image (a bitmap far above the threshold), each block of
    /// 4 KiB or more recorded: every successful run has holders.
    static func arguments(runs: Int, out: String, shard: String? = nil) -> [String] {
        [
            "run", "--strategy", "data", "--render", "full", "--allocator", "system", "--runs", String(runs),
            "--width", "320", "--height", "240", "--holder-threshold", "4096", "--out", out,
        ]
            + (shard.map { ["--shard", $0] } ?? [])
    }

    /// residency.csv holds each run in `runs` once: both moments, every category once each.
    static func expectResidency(_ folder: URL, of runs: Set<String>) throws {
        let rows = try JobsTests.rows(folder, file: "residency.csv")
        #expect(try Self.runs(folder, file: "residency.csv") == runs, "residency.csv breaks down every run's RSS")
        #expect(
            rows.count == runs.count * ResidencyMoment.allCases.count * ResidencyCategory.allCases.count,
            "\(rows.count) rows for \(runs.count) runs"
        )
    }

    /// "strategy/render/allocator/run" of every row of `file` (a key column set both files share).
    static func runs(_ folder: URL, file: String) throws -> Set<String> {
        Set(
            try JobsTests.rows(folder, file: file).map { row in
                ["strategy", "render", "allocator", "run"].map { row[$0] ?? "" }.joined(separator: "/")
            }
        )
    }

    static func successfulRuns(_ folder: URL) throws -> Set<String> {
        Set(
            try JobsTests.rows(folder).filter { $0["status"] == "ok" }.map { row in
                ["strategy", "render", "allocator", "run"].map { row[$0] ?? "" }.joined(separator: "/")
            }
        )
    }

    /// Runs of trials.json that carry holders.
    static func runsWithHoldersInJSON(_ folder: URL) throws -> Set<String> {
        let json = try ShardCompletenessTests.json(folder.appendingPathComponent("trials.json"))
        let trials = try #require(json["trials"] as? [[String: Any]])
        return Set(
            trials.filter { ($0["holders"] as? [Any]) != nil }.map { trial in
                let cell = ["strategy", "render", "allocator"].map { trial[$0] as? String ?? "" }
                return (cell + ["\(trial["run"] as? Int ?? 0)"]).joined(separator: "/")
            }
        )
    }

    /// Waits until `bench` has appended `rows` rows to trials.csv, then kills it (SIGKILL).
    static func kill(_ bench: RowsKeptTests.RunningBench, after rows: Int, in folder: URL) throws -> Int {
        let csv = folder.appendingPathComponent("trials.csv")
        let deadline = Date().addingTimeInterval(120)
        while CorpusResumeTests.dataLines(csv) < rows && bench.isRunning && Date() < deadline { usleep(5_000) }
        killWithChildren(bench)
        return CorpusResumeTests.dataLines(csv)
    }

    /// SIGKILL, and the child it was measuring too (a killed parent's child would live on):
    /// stopped first, so that it starts no child between the two.
    static func killWithChildren(_ bench: RowsKeptTests.RunningBench) {
        bench.signal(SIGSTOP)
        usleep(50_000)
        let children = bench.children
        bench.signal(SIGKILL)
        CorpusResumeTests.reap(bench.pid)
        for child in children {
            Glibc.kill(-child, SIGKILL)  // each child leads its own process group
            Glibc.kill(child, SIGKILL)
        }
    }

    /// SIGKILL mid-run, then --resume: holders.csv, holders.folded and trials.json hold the
    /// holders of every run, those measured before the kill included, and environment.txt is
    /// there. A resume of the complete folder writes them again from the files.
    @Test func aKilledRunResumedHasTheHoldersOfEveryRun() throws {
        let bench = try RowsKeptTests.RunningBench(Self.arguments(runs: 6, out: "out"))
        let out = bench.folder.appendingPathComponent("out")
        let kept = try Self.kill(bench, after: 2, in: out)
        try #require(kept >= 2 && kept < 6, "killed after \(kept) of 6 runs: \(bench.standardError)")

        let resumed = try BenchProcess.run(
            Self.arguments(runs: 6, out: "out") + ["--resume"],
            workingDirectory: bench.folder
        )
        #expect(resumed.status == 0, "\(resumed.standardError)")
        let measured = try Self.successfulRuns(out)
        #expect(measured.count == 6, "\(measured)")
        #expect(try Self.runs(out, file: "holders.csv") == measured, "holders.csv names every run's holders")
        #expect(try Self.runsWithHoldersInJSON(out) == measured, "trials.json carries every run's holders")
        try Self.expectResidency(out, of: measured)
        let folded = try String(contentsOf: out.appendingPathComponent("holders.folded"), encoding: .utf8)
        // cell;run N;stack bytes
        let foldedRuns = Set(
            folded.split(separator: "\n").compactMap { line in
                line.split(separator: ";").dropFirst().first.map(String.init)
            }
        )
        #expect(foldedRuns == Set((1...6).map { "run \($0)" }), "\(foldedRuns)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("environment.txt").path))

        for file in ["holders.folded", "trials.json", "environment.txt", "summary.csv"] {
            try FileManager.default.removeItem(at: out.appendingPathComponent(file))
        }
        let again = try BenchProcess.run(
            Self.arguments(runs: 6, out: "out") + ["--resume"],
            workingDirectory: bench.folder
        )
        #expect(again.status == 0, "\(again.standardError)")
        #expect(
            try Self.runsWithHoldersInJSON(out) == measured,
            "a complete folder's resume rebuilds trials.json with its holders"
        )
        #expect(try String(contentsOf: out.appendingPathComponent("holders.folded"), encoding: .utf8) == folded)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("environment.txt").path))
    }

    /// A run shard killed mid-way merges with --partial (its rows and their holders, the missing
    /// rows counted in merge.json); resumed, its merge holds the holders of every run.
    @Test func aMergeKeepsTheShardsHolders() throws {
        let bench = try RowsKeptTests.RunningBench(Self.arguments(runs: 6, out: "shard", shard: "1/1"))
        let shard = bench.folder.appendingPathComponent("shard")
        let kept = try Self.kill(bench, after: 2, in: shard)
        try #require(kept >= 2 && kept < 6, "killed after \(kept) of 6 runs: \(bench.standardError)")

        let partial = bench.folder.appendingPathComponent("partial")
        let merged = InProcessBench.run(["merge", shard.path, "--out", partial.path, "--partial"])
        #expect(merged.status == 0, "\(merged.standardError)")
        let partialRuns = try Self.successfulRuns(partial)
        #expect(partialRuns.count == kept, "\(partialRuns)")
        #expect(try Self.runs(partial, file: "holders.csv") == partialRuns)
        try Self.expectResidency(partial, of: partialRuns)
        let record = try ShardCompletenessTests.json(partial.appendingPathComponent("merge.json"))
        #expect(record["missingRows"] as? Int == 6 - kept, "\(record)")

        let resumed = try BenchProcess.run(
            Self.arguments(runs: 6, out: "shard", shard: "1/1") + ["--resume"],
            workingDirectory: bench.folder
        )
        #expect(resumed.status == 0, "\(resumed.standardError)")
        let whole = bench.folder.appendingPathComponent("whole")
        let merge = InProcessBench.run(["merge", shard.path, "--out", whole.path])
        #expect(merge.status == 0, "\(merge.standardError)")
        let measured = try Self.successfulRuns(whole)
        #expect(measured.count == 6, "\(measured)")
        #expect(try Self.runs(whole, file: "holders.csv") == measured, "the merged holders.csv has every run's holders")
        #expect(try Self.runsWithHoldersInJSON(whole) == measured)
        try Self.expectResidency(whole, of: measured)
    }
}
