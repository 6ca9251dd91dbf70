import BenchCore
import Foundation
import ReferenceDocuments
import Report
import Testing

/// The overhead study's reduction of run folders, on folders written by the harness's own writers.
@Suite struct OverheadStudyTests {
    let scratch = FileManager.default.temporaryDirectory
        .appendingPathComponent("overhead-study-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)

    /// One data+full trial: a 100 ms window after a 100 ms start-up and a 50 ms warm-up, a 50 ms settle,
    /// 400 ms in all. After the render RSS moves by 100 KB at 3 ms, then stays; the last sample is 4 KB higher.
    static func trial() -> TrialResult {
        var trial = okRow(TrialCell(strategy: "data", render: .full, allocator: .system), run: 1, pid: 42)
        trial.startupSeconds = 0.1
        trial.warmupSeconds = 0.05
        trial.durationSeconds = 0.1
        trial.settleSeconds = 0.05
        trial.wallSeconds = 0.4
        trial.baselineRSSBytes = 10_000_000
        trial.finalRSSBytes = 30_000_000
        trial.baselineAllocatedBytes = 1_000_000
        trial.finalAllocatedBytes = 21_000_000
        let rss = 30_000_000
        let heap = 21_000_000
        trial.timeline = [
            TimelinePoint(seconds: 0.05, residentBytes: 20_000_000, allocatedBytes: 11_000_000),
            TimelinePoint(seconds: 0.1005, residentBytes: rss, allocatedBytes: heap),
            TimelinePoint(seconds: 0.102, residentBytes: rss + 50_000, allocatedBytes: heap),
            TimelinePoint(seconds: 0.103, residentBytes: rss + 100_000, allocatedBytes: heap),
            TimelinePoint(seconds: 0.108, residentBytes: rss + 100_000, allocatedBytes: heap),
            TimelinePoint(seconds: 0.1135, residentBytes: rss + 100_000, allocatedBytes: heap),
            TimelinePoint(seconds: 0.15, residentBytes: rss + 104_096, allocatedBytes: heap),
        ]
        return trial
    }

    /// `label`/matrix-j1-1/ with the trial's trials.json and timeline.csv, and `label`/timings.csv.
    func writeRuns(_ label: String) throws {
        let run = scratch.appendingPathComponent("\(label)/matrix-j1-1", isDirectory: true)
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        let trial = Self.trial()
        let export = JSONExport(
            context: RunContext(
                command: "",
                source: "",
                payloadBytes: nil,
                runsPerCell: 1,
                sampleIntervalNanos: 500_000
            ),
            trials: [trial]
        )
        try export.encoded().write(to: run.appendingPathComponent(JSONExport.fileName))
        try TimelineCSV.render([trial]).write(
            to: run.appendingPathComponent(TimelineCSV.fileName),
            atomically: true,
            encoding: .utf8
        )
        try "workload,jobs,repeat,wall_s\nmatrix,1,1,0.52\n".write(
            to: scratch.appendingPathComponent("\(label)/timings.csv"),
            atomically: true,
            encoding: .utf8
        )
    }

    @Test func eachTrialsPhasesAndTheRuleReplayedOnTheFixedPausesSamples() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        try writeRuns("fixed")
        try writeRuns("rule")
        let files = Dictionary(
            uniqueKeysWithValues: try OverheadStudy.reduce(scratch: scratch).map { ($0.name, $0.text) }
        )
        let key = "1,1,data,full,system,1"
        #expect(
            files["phases.csv"]
                == OverheadStudy.phasesColumns.joined(separator: ",") + "\n"
                + "fixed,\(key),100.000,50.000,100.000,50.000,100.000,400.000,300.000,20000000,20000000,\n"
                + "rule,\(key),100.000,50.000,100.000,50.000,100.000,400.000,300.000,20000000,20000000,\n"
        )
        // RSS moved last at 3 ms (50 KB at 2 ms is within the 64 KiB tolerance); 10 ms flat after it
        // ends the rule at the sample of 13.5 ms, which reads 4,096 bytes of RSS below the last one.
        #expect(
            files["settle.csv"]
                == OverheadStudy.settleColumns.joined(separator: ",") + "\n"
                + "fixed,\(key),50.000,3.000,13.500,4096,0\n"
        )
        #expect(
            files["timings.csv"] == "settle,workload,jobs,repeat,wall_s\nfixed,matrix,1,1,0.52\nrule,matrix,1,1,0.52\n"
        )
    }

    @Test func aFolderWithoutRunsGivesNoFiles() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        #expect(try OverheadStudy.reduce(scratch: scratch).isEmpty)
    }

    /// What a trial did not record is an empty cell, and so is what is computed from it: never a 0.
    @Test func whatATrialDidNotRecordIsAnEmptyCell() {
        var trial = Self.trial()
        trial.wallSeconds = nil
        trial.settleSeconds = nil
        trial.timeline = []
        #expect(
            OverheadStudy.phaseFields(trial)
                == ["100.000", "50.000", "100.000", "", "", "", "", "20000000", "20000000", ""]
        )
    }
}
