import BenchCore
import Corpus
import Foundation
import Report
import TestSupport
import Testing

/// Runs stopped at any moment, SIGKILL included: the rows appended so far stay readable, and
/// `--resume` measures only what is missing. Each row is appended as its run ends (corpus.csv,
/// trials.csv and timeline.csv alike), and the files that are not images are one counted line on stderr.
@Suite(.serialized) struct CorpusResumeTests {
    /// A folder of `images` copies of a 64x64 JPEG and `notes` text files.
    static func corpus(images: Int, notes: Int, in folder: URL) throws -> URL {
        let corpus = folder.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        let tiny = folder.appendingPathComponent("tiny.jpg")
        let made = InProcessBench.run(["fixture", "--width", "64", "--height", "64", "--out", tiny.path])
        try #require(made.status == 0, "\(made.standardError)")
        for index in 0..<images {
            try FileManager.default.copyItem(at: tiny, to: corpus.appendingPathComponent("img\(index).jpg"))
        }
        for index in 0..<notes {
            try Data("not an image \(index)\n".utf8).write(to: corpus.appendingPathComponent("note\(index).txt"))
        }
        return corpus
    }

    static func dataLines(_ file: URL) -> Int {
        guard let data = FileManager.default.contents(atPath: file.path) else { return 0 }
        return max(0, data.filter { $0 == UInt8(ascii: "\n") }.count - 1)
    }

    /// Waits for a killed bench to be gone (reaped here, or already reaped by Foundation's own child handling).
    static func reap(_ pid: Int32) {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped == -1 && errno == ECHILD) { return }
            usleep(10_000)
        }
        Issue.record("bench \(pid) still there 30 s after SIGKILL")
    }

    @Test func sigkillMidCorpusThenResumeGivesEveryPlannedRowOnce() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = try Self.corpus(images: 8, notes: 2, in: folder)
        let arguments = [
            "corpus", corpus.path, "--strategy", "download", "--render", "none", "--runs", "2", "--jobs", "2", "--out",
            "out",
        ]
        let csv = folder.appendingPathComponent("out/corpus.csv")

        let first = try RowsKeptTests.RunningBench(arguments, folder: folder)
        let deadline = Date().addingTimeInterval(120)
        while Self.dataLines(csv) < 6 && first.isRunning && Date() < deadline { usleep(5_000) }
        first.signal(SIGKILL)
        Self.reap(first.pid)
        let kept = Self.dataLines(csv)
        #expect(kept >= 6 && kept < 18, "killed after \(kept) of 18 rows: \(first.standardError)")
        let afterKill = try CorpusCSV.parse(String(contentsOf: csv, encoding: .utf8)).rows
        #expect(afterKill.count >= 6, "every complete row parses")

        // `bench report` finishes the stopped run's folder from its rows.
        let report = InProcessBench.run(["report", "--results", folder.appendingPathComponent("out").path])
        #expect(report.status == 0, "\(report.standardError)")
        let ranked = try JobsTests.rows(folder.appendingPathComponent("out"), file: "corpus-summary.csv")
        let measuredImages = Set(afterKill.filter { $0.result?.isSuccess == true }.map(\.name))
        #expect(Set(ranked.map { $0["file"] ?? "" }) == measuredImages, "\(ranked)")

        let second = try BenchProcess.run(arguments + ["--resume"], workingDirectory: folder)
        #expect(second.status == 3, "the text files are rows that were not measured: \(second.standardError)")
        #expect(second.standardError.contains("of 18 rows done"), "\(second.standardError)")
        let rows = try JobsTests.rows(folder.appendingPathComponent("out"), file: "corpus.csv")
        let keys = rows.map {
            [$0["file"]!, $0["strategy"]!, $0["render"]!, $0["allocator"]!, $0["run"]!].joined(separator: " ")
        }
        #expect(rows.count == 18 && Set(keys).count == 18, "every planned row once: \(keys.sorted())")
        #expect(rows.filter { $0["status"] == "ok" }.count == 16, "\(rows.map { $0["status"]! })")
        #expect(Set(rows.map { $0["run_id"]! }).count == 1, "a resumed run writes its rows with the folder's run id")
        #expect(
            rows.map { $0["file"]! } == rows.map { $0["file"]! }.sorted(),
            "the final file is in the corpus's order"
        )
    }

    @Test func appendedFilesParseAfterAKillAtARandomMoment() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let delay = Double.random(in: 0...3)
        let bench = try RowsKeptTests.RunningBench(
            [
                "run", "--strategy", "data", "--render", "none", "--allocator", "system",
                "--runs", "400", "--width", "64", "--height", "64", "--out", "out",
            ],
            folder: folder
        )
        // A random moment once the first row is written, long before the 400th (a loaded machine may take
        // seconds to start the run).
        let trialsFile = folder.appendingPathComponent("out/trials.csv")
        func rowsWritten() -> Int {
            (FileManager.default.contents(atPath: trialsFile.path) ?? Data()).filter { $0 == 10 }.count - 1
        }
        var waited = 0
        while rowsWritten() < 1 && waited < 600 {
            usleep(50_000)
            waited += 1
        }
        usleep(UInt32(delay * 1e6))
        bench.signal(SIGKILL)
        Self.reap(bench.pid)
        let out = folder.appendingPathComponent("out")
        let trials = try TrialsFile.load(out.appendingPathComponent("trials.csv").path)
        #expect(!trials.isEmpty, "killed after \(delay) s: \(bench.standardError)")
        // Every run in trials.csv has its samples in timeline.csv, appended as it ended.
        let timeline = try String(contentsOf: out.appendingPathComponent("timeline.csv"), encoding: .utf8)
        let keys = Set(trials.map { RunKey(cell: $0.cell, run: $0.run) })
        let samples = try TimelineCSV.parse(timeline, keep: keys)
        #expect(
            Set(samples.keys) == keys,
            "killed after \(delay) s: \(samples.keys.count) runs with samples, \(keys.count) rows"
        )

        // A row cut short mid-write is dropped with a note, and the report finishes the folder.
        try Self.expectReportIgnoresALineCutShort(in: out)
    }

    /// A finished run's trials.csv with a last line cut short (a second writer stopped mid-row) still
    /// reports: the cut line is ignored with a note, as every reader ignores it, and is not counted
    /// against trials.json's rows.
    @Test func aFinishedRunWithALineCutShortStillReports() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let run = InProcessBench.run([
            "run", "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "2",
            "--width", "64", "--height", "64", "--out", out.path,
        ])
        #expect(run.status == 0, "\(run.standardError)")
        try Self.expectReportIgnoresALineCutShort(in: out)
    }

    /// Appends a trials.csv row cut short to `out`, then `bench report` must finish the folder,
    /// noting and ignoring the cut line.
    static func expectReportIgnoresALineCutShort(in out: URL) throws {
        let handle = try FileHandle(forWritingTo: out.appendingPathComponent("trials.csv"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("data,none,system,99,12".utf8))
        try handle.close()
        let report = InProcessBench.run(["report", "--results", out.path])
        #expect(report.status == 0, "\(report.standardError)")
        #expect(report.standardError.contains("is cut short"), "\(report.standardError)")
    }

    @Test func resumeRefusesChangedSettingsNamingEachAndSaysWhenDone() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let arguments = [
            "run", "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "2",
            "--width", "64", "--height", "64", "--out", folder.appendingPathComponent("out").path,
        ]
        let first = InProcessBench.run(arguments)
        try #require(first.status == 0, "\(first.standardError)")
        let trials = folder.appendingPathComponent("out/trials.csv")
        let before = try Data(contentsOf: trials)

        var changed = arguments
        changed[changed.firstIndex(of: "--runs")! + 1] = "3"
        changed[changed.firstIndex(of: "--render")! + 1] = "full"
        let refused = InProcessBench.run(changed + ["--resume"])
        #expect(refused.status == 64, "\(refused.standardError)")
        #expect(refused.standardError.contains("--runs: 2 then, 3 now"), "\(refused.standardError)")
        #expect(refused.standardError.contains("--render: none then, full now"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("--allocator:"), "only what differs is named: \(refused.standardError)")

        // The settle rule changes the final readings: a resume under the other one (`--settle fixed`,
        // recorded under its alias's name) is refused too.
        let otherSettle = InProcessBench.run(arguments + ["--settle", "fixed", "--resume"])
        #expect(otherSettle.status == 64, "\(otherSettle.standardError)")
        #expect(
            otherSettle.standardError.contains("BENCH_SETTLE: rule then, fixed now"),
            "\(otherSettle.standardError)"
        )

        let done = InProcessBench.run(arguments + ["--resume"])
        #expect(done.status == 0, "\(done.standardError)")
        #expect(done.standardError.contains("already in"), "\(done.standardError)")
        #expect(try Data(contentsOf: trials) == before, "a complete run's rows are left as they are")
    }

    @Test func filesThatAreNotImagesAreOneCountedLine() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = try Self.corpus(images: 1, notes: 1200, in: folder)
        let output = InProcessBench.run(
            [
                "corpus", corpus.path, "--strategy", "download", "--render", "none", "--runs", "1",
                "--out", folder.appendingPathComponent("out").path,
            ]
        )
        #expect(output.status == 3, "\(output.standardError)")
        #expect(
            output.standardError.contains("bench: 1,200 files are not images (rows in corpus.csv)"),
            "\(output.standardError.suffix(2000))"
        )
        #expect(!output.standardError.contains("note7.txt"), "no line a file")
        #expect(output.standardError.utf8.count < 4000, "\(output.standardError.utf8.count) bytes of stderr")
        let rows = try JobsTests.rows(folder.appendingPathComponent("out"), file: "corpus.csv")
        #expect(rows.filter { $0["status"] == "not_an_image" }.count == 1200 && rows.count == 1201)
    }
}
