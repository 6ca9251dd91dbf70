import BenchCommandLine
import BenchCore
import Foundation
import Harness
import Report
import TestSupport
import Testing

/// `bench compare` on crafted trials.csv files, run in-process as `bench` runs it (`InProcessBench`):
/// the table and, above all, the exit status a CI job branches on.
@Suite struct CompareCommandTests {
    static let header =
        "strategy,render,allocator,run,pid,payload_bytes,baseline_rss_bytes,peak_rss_bytes,"
        + "peak_rss_delta_bytes,peak_allocated_bytes,peak_allocated_delta_bytes,final_rss_bytes,duration_s,status,error"

    /// One row; the heap's delta follows the RSS delta so that both metrics move together.
    static func row(_ cell: String, run: Int, delta: Int, status: String = "ok") -> String {
        let parts = cell.split(separator: "/").map(String.init)
        guard status == "ok" else {
            return "\(parts[0]),\(parts[1]),\(parts[2]),\(run),1,,,,,,,,,\(status),HTTP status 503"
        }
        let baseline = 50_000_000
        return "\(parts[0]),\(parts[1]),\(parts[2]),\(run),\(1000 + run),13108402,\(baseline),\(baseline + delta),"
            + "\(delta),\(80_000_000 + delta),\(delta),\(baseline + delta),0.5,ok,"
    }

    static let cells = ["data/none/system", "data/full/system", "download/none/system", "download/full/system"]
    static let typical = [
        "data/none/system": 26_500_000, "data/full/system": 109_600_000,
        "download/none/system": 300_000, "download/full/system": 96_400_000,
    ]

    /// `runs` rows per cell, a little spread between runs, plus `extra` to each delta of the cells in `shift`.
    static func trials(runs: Int, shift: [String: Int] = [:], skip: Set<String> = [], failing: String? = nil) -> String
    {
        var lines = [header]
        for run in 1...runs {
            for cell in cells where !skip.contains(cell) {
                if cell == failing && run == runs {
                    lines.append(row(cell, run: run, delta: 0, status: "http_error"))
                    continue
                }
                lines.append(row(cell, run: run, delta: typical[cell]! + (shift[cell] ?? 0) + (run * 53_248) % 180_224))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the files into a fresh folder and runs `bench compare` there, with the repository's thresholds.
    func compare(
        baseline: String?,
        current: String,
        thresholds: String = Self.thresholdsFile
    ) throws -> CommandOutput {
        let folder = TestFolder.temporary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let baselinePath = folder.appendingPathComponent("baseline.csv")
        if let baseline { try baseline.write(to: baselinePath, atomically: true, encoding: .utf8) }
        let currentPath = folder.appendingPathComponent("current.csv")
        try current.write(to: currentPath, atomically: true, encoding: .utf8)
        return InProcessBench.run(["compare", baselinePath.path, currentPath.path, "--thresholds", thresholds])
    }

    static var thresholdsFile: String { GateThresholdsFile.path }

    /// A file that is a pipe (`/dev/stdin` under a shell's `|`) is read to its end like any other: here
    /// a pipe of this process, the current run written into it and its end closed, named /dev/fd/N.
    @Test func aPipeIsReadAsTheCurrentFile() throws {
        let folder = TestFolder.temporary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let baseline = folder.appendingPathComponent("baseline.csv")
        try Self.trials(runs: 10).write(to: baseline, atomically: true, encoding: .utf8)
        let pipe = Pipe()
        defer { try? pipe.fileHandleForReading.close() }
        try pipe.fileHandleForWriting.write(contentsOf: Data(Self.trials(runs: 5).utf8))
        try pipe.fileHandleForWriting.close()
        let current = "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)"
        let output = InProcessBench.run(["compare", baseline.path, current, "--thresholds", Self.thresholdsFile])
        #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput.contains("4 cells: 4 ok"), "\(output.standardOutput)")
    }

    @Test func unchangedRunPasses() throws {
        let output = try compare(baseline: Self.trials(runs: 10), current: Self.trials(runs: 5))
        #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput.contains("4 cells: 4 ok"))
        #expect(output.standardOutput.contains("verdict: PASS"))
    }

    @Test func extraCopyOfThePayloadIsARegressionNamedInTheTable() throws {
        let output = try compare(
            baseline: Self.trials(runs: 10),
            current: Self.trials(runs: 5, shift: ["data/full/system": 13_108_402])
        )
        #expect(output.status == 2, "\(output.standardOutput)\(output.standardError)")
        let regressed = output.standardOutput.split(separator: "\n").filter { $0.contains("REGRESSION") }
        #expect(regressed.count == 2, "both metrics of the one cell")
        #expect(regressed.allSatisfy { $0.hasPrefix("data+full [system]") })
        #expect(output.standardOutput.contains("regressed: data+full [system]\n"))
    }

    @Test func improvementIsReportedAndPasses() throws {
        let output = try compare(
            baseline: Self.trials(runs: 10),
            current: Self.trials(runs: 5, shift: ["data/none/system": -13_000_000])
        )
        #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput.contains("improvement"))
    }

    @Test func missingCellFailsTheRun() throws {
        let output = try compare(
            baseline: Self.trials(runs: 10),
            current: Self.trials(runs: 5, skip: ["download/full/system"])
        )
        #expect(output.status == 3)
        #expect(output.standardOutput.contains("download+full [system]") && output.standardOutput.contains("missing"))
    }

    @Test func failedRunInCurrentFailsTheRunAndSaysWhy() throws {
        let output = try compare(
            baseline: Self.trials(runs: 10),
            current: Self.trials(runs: 5, failing: "data/none/system")
        )
        #expect(output.status == 3)
        #expect(output.standardOutput.contains("1 of 5 runs failed in CURRENT (http_error: HTTP status 503)"))
    }

    @Test func malformedCurrentNamesTheLineAndTheProblem() throws {
        let broken = Self.trials(runs: 5).replacingOccurrences(of: ",13108402,", with: ",13108402,oops,")
        let output = try compare(baseline: Self.trials(runs: 10), current: broken)
        #expect(output.status == 3)
        #expect(output.standardError.contains("line 2: 16 fields, the header has 15"), "\(output.standardError)")
    }

    @Test func malformedBaselineIsARunFailureNotAMissingBaseline() throws {
        let output = try compare(baseline: "strategy,render\ndata,full\n", current: Self.trials(runs: 5))
        #expect(output.status == 3)
        #expect(output.standardError.contains("missing column(s) allocator, run, status"), "\(output.standardError)")
    }

    @Test(arguments: ["", Self.header + "\n"])
    func emptyBaselineIsNoBaseline(text: String) throws {
        let output = try compare(baseline: text, current: Self.trials(runs: 5))
        #expect(output.status == 5)
        #expect(output.standardError.contains("no baseline") && output.standardError.contains("bench baseline update"))
    }

    @Test func absentBaselineIsNoBaseline() throws {
        let output = try compare(baseline: nil, current: Self.trials(runs: 5))
        #expect(output.status == 5)
        #expect(output.standardError.contains("no such file"))
    }

    @Test func jsonExportIsReadAsWellAsCSV() throws {
        let folder = TestFolder.temporary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rows = try TrialsCSV.parse(Self.trials(runs: 10))
        let json = folder.appendingPathComponent("baseline.json")
        try JSONExport(
            context: RunContext(
                command: "test",
                source: "crafted",
                payloadBytes: nil,
                runsPerCell: 10,
                sampleIntervalNanos: 500_000
            ),
            trials: rows
        ).encoded().write(to: json)
        let csv = folder.appendingPathComponent("current.csv")
        try Self.trials(runs: 5, shift: ["download/full/system": 20_000_000]).write(
            to: csv,
            atomically: true,
            encoding: .utf8
        )
        let output = InProcessBench.run([
            "compare", json.path, csv.path, "--thresholds", Self.thresholdsFile,
            "--format", "markdown",
        ])
        #expect(output.status == 2)
        #expect(output.standardOutput.hasPrefix("### Memory gate"))
        #expect(output.standardOutput.contains("| download+full [system] | peak RSS |"))
    }

    @Test func badThresholdsFileIsAUsageErrorNamingTheMetrics() throws {
        let folder = TestFolder.temporary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let thresholds = folder.appendingPathComponent("thresholds.json")
        try
            #"{"significance_level": 0.05, "cv_warning_percent": 10, "metrics": {"peak_rss": {"absolute_bytes": 1, "relative_percent": 1}}}"#
            .write(to: thresholds, atomically: true, encoding: .utf8)
        let output = try compare(
            baseline: Self.trials(runs: 10),
            current: Self.trials(runs: 5),
            thresholds: thresholds.path
        )
        #expect(output.status == 64)
        #expect(
            output.standardError.contains("peak_rss_delta_bytes, peak_allocated_delta_bytes"),
            "\(output.standardError)"
        )
    }

    // MARK: Files that measured different things are refused, not judged

    /// Writes `rows` as a trials.json in `folder`.
    static func writeJSON(_ rows: [TrialResult], to file: URL) throws {
        try JSONExport(
            context: RunContext(
                command: "test",
                source: "crafted",
                payloadBytes: rows.first?.payloadBytes,
                runsPerCell: 5,
                sampleIntervalNanos: 500_000
            ),
            trials: rows
        ).encoded().write(to: file)
    }

    func compareRows(_ baseline: [TrialResult], _ current: [TrialResult]) throws -> CommandOutput {
        let folder = TestFolder.temporary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let baselinePath = folder.appendingPathComponent("baseline.json")
        let currentPath = folder.appendingPathComponent("current.json")
        try Self.writeJSON(baseline, to: baselinePath)
        try Self.writeJSON(current, to: currentPath)
        return InProcessBench.run([
            "compare", baselinePath.path, currentPath.path, "--thresholds", Self.thresholdsFile,
        ])
    }

    @Test func aDifferentPayloadSizeIsRefusedNamingBothSizes() throws {
        let bigger = Self.trials(runs: 5).replacingOccurrences(of: ",13108402,", with: ",29491200,")
        let output = try compare(baseline: Self.trials(runs: 10), current: bigger)
        #expect(output.status == 3, "\(output.standardOutput)")
        #expect(
            output.standardError.contains("payload size differs: baseline 13108402 bytes, current 29491200 bytes"),
            "\(output.standardError)"
        )
        #expect(!output.standardOutput.contains("verdict"), "no table for files that cannot be compared")
    }

    @Test func differentImageDimensionsAreRefusedNamingBoth() throws {
        func rows(_ text: String, width: Int, height: Int) throws -> [TrialResult] {
            try TrialsCSV.parse(text).map { row in
                var row = row
                if row.render == .full {
                    row.imageWidth = width
                    row.imageHeight = height
                }
                return row
            }
        }
        let output = try compareRows(
            try rows(Self.trials(runs: 10), width: 6000, height: 4000),
            try rows(Self.trials(runs: 5), width: 9000, height: 6000)
        )
        #expect(output.status == 3, "\(output.standardOutput)")
        #expect(
            output.standardError.contains("image dimensions differ: baseline 6000x4000, current 9000x6000"),
            "\(output.standardError)"
        )
        // The same dimensions on both sides are compared as usual.
        let same = try compareRows(
            try rows(Self.trials(runs: 10), width: 6000, height: 4000),
            try rows(Self.trials(runs: 5), width: 6000, height: 4000)
        )
        #expect(same.status == 0, "\(same.standardOutput)\(same.standardError)")
    }

    @Test func aDifferentSetOfStrategiesIsRefusedNamingBothSets() throws {
        let onlyData = try compare(
            baseline: Self.trials(runs: 10),
            current: Self.trials(runs: 5, skip: ["download/none/system", "download/full/system"])
        )
        #expect(onlyData.status == 3)
        #expect(
            onlyData.standardError.contains("measured strategies differ: baseline data, download, current data"),
            "\(onlyData.standardError)"
        )

        let curl = Self.trials(runs: 5).replacingOccurrences(of: "\ndownload,", with: "\ncurl-file,")
        let renamed = try compare(baseline: Self.trials(runs: 10), current: curl)
        #expect(renamed.status == 3)
        #expect(
            renamed.standardError.contains("baseline data, download, current curl-file, data"),
            "\(renamed.standardError)"
        )
    }

    // MARK: The default thresholds file

    /// With no --thresholds, the file next to the baseline is tried first, from any folder (results/thresholds.json
    /// beside results/baseline.json), then results/thresholds.json in the current folder.
    @Test func defaultThresholdsAreLookedForNextToTheBaselineFromAnyFolder() {
        #expect(
            CompareCommand.defaultThresholdsCandidates(baseline: "../baseline.csv", workingDirectory: "/a/elsewhere")
                == ["/a/thresholds.json", "/a/elsewhere/results/thresholds.json"]
        )
        #expect(
            CompareCommand.defaultThresholdsCandidates(baseline: "results/baseline.json", workingDirectory: "/repo")
                == ["/repo/results/thresholds.json"]
        )
    }

    /// The thresholds beside the baseline are the ones used when --thresholds is not given.
    @Test func defaultThresholdsBesideTheBaselineAreUsed() throws {
        let folder = TestFolder.temporary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let baseline = folder.appendingPathComponent("baseline.csv")
        let current = folder.appendingPathComponent("current.csv")
        try Self.trials(runs: 10).write(to: baseline, atomically: true, encoding: .utf8)
        try Self.trials(runs: 5, shift: ["data/full/system": 13_108_402]).write(
            to: current,
            atomically: true,
            encoding: .utf8
        )
        // Strict settings beside the baseline: they are the ones used (a 1-byte allowance, level 0.5).
        try
            #"{"significance_level": 0.5, "cv_warning_percent": 10, "metrics": {"peak_rss_delta_bytes": {"absolute_bytes": 1, "relative_percent": 0}}}"#
            .write(to: folder.appendingPathComponent("thresholds.json"), atomically: true, encoding: .utf8)
        let found = InProcessBench.run(["compare", baseline.path, current.path])
        #expect(found.status == 2, "\(found.standardOutput)\(found.standardError)")
        #expect(found.standardOutput.contains("p < 0.5"))
        #expect(!found.standardOutput.contains("heap peak"), "only the metric of the file beside the baseline")
    }
}
