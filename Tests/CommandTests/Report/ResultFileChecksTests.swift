import BenchCore
import Foundation
import TestSupport
import Testing

/// Result files given to `baseline update --from` and `report` that are not a run's trials: a
/// corpus.csv (it has strategy, render, allocator, run and status, but no baseline or peak RSS) and
/// a trials.csv with impossible figures. Refused with 65, naming the file and the column; nothing
/// written. And options that would be ignored without a word are refused, naming the option. Every
/// command runs in-process (`InProcessBench`), the measurements with recorded children.
@Suite struct ResultFileChecksTests {
    static let quick = [
        "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "1", "--width", "64", "--height",
        "48",
    ]

    /// A one-run measurement in `folder`/run, which it returns.
    static func quickRun(in folder: URL) throws -> URL {
        let run = folder.appendingPathComponent("run")
        let measured = InProcessBench.run(["run"] + quick + ["--out", run.path])
        try #require(measured.status == 0, "\(measured.standardError)")
        return run
    }

    static func corpusCSV(in folder: URL) throws -> URL {
        let corpus = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        let made = InProcessBench.run([
            "fixture", "--width", "64", "--height", "48", "--out", corpus.appendingPathComponent("a.jpg").path,
        ])
        try #require(made.status == 0, "\(made.standardError)")
        let out = folder.appendingPathComponent("corpus-out")
        let measured = InProcessBench.run([
            "corpus", corpus.path, "--render", "none", "--runs", "1", "--out", out.path,
        ])
        try #require(measured.status == 0, "\(measured.standardError)")
        return out.appendingPathComponent("corpus.csv")
    }

    @Test func aCorpusCSVIsNotABaselineNorAReport() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpusCSV = try Self.corpusCSV(in: folder)

        let baseline = folder.appendingPathComponent("baseline.json")
        let update = InProcessBench.run(["baseline", "update", "--from", corpusCSV.path, "--baseline", baseline.path])
        #expect(update.status == BenchExitCode.badInput.rawValue, "\(update.status): \(update.standardError)")
        #expect(
            update.standardError.contains(corpusCSV.path) && update.standardError.contains("baseline_rss_bytes"),
            "\(update.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: baseline.path))

        let results = folder.appendingPathComponent("results")
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: corpusCSV, to: results.appendingPathComponent("trials.csv"))
        let report = InProcessBench.run(["report", "--results", results.path])
        #expect(report.status == BenchExitCode.badInput.rawValue, "\(report.status): \(report.standardError)")
        #expect(
            report.standardError.contains("trials.csv") && report.standardError.contains("peak_rss_bytes"),
            "\(report.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: results.appendingPathComponent("REPORT.md").path))
    }

    /// A real run's trials.csv with one figure made impossible: a negative byte count, a NaN or
    /// infinite time, a peak below its baseline.
    @Test(arguments: [
        ("peak_rss_bytes", "-5"), ("duration_s", "nan"), ("duration_s", "inf"), ("final_rss_bytes", "-1"),
        ("peak_rss_bytes", "1000"),
    ])
    func impossibleFiguresAreRefusedNamingTheColumn(column: String, value: String) throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.quickRun(in: folder)
        var table = try CSV.parse(String(contentsOf: run.appendingPathComponent("trials.csv"), encoding: .utf8)).filter
        { $0 != [""] }
        let index = try #require(table[0].firstIndex(of: column))
        table[1][index] = value
        let results = folder.appendingPathComponent("results")
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        let trials = results.appendingPathComponent("trials.csv")
        try Data((table.map(CSV.line).joined(separator: "\n") + "\n").utf8).write(to: trials)

        let report = InProcessBench.run(["report", "--results", results.path])
        #expect(report.status == BenchExitCode.badInput.rawValue, "\(report.status): \(report.standardError)")
        #expect(
            report.standardError.contains(trials.path) && report.standardError.contains(column),
            "\(report.standardError)"
        )
        let baseline = folder.appendingPathComponent("baseline.json")
        let update = InProcessBench.run(["baseline", "update", "--from", trials.path, "--baseline", baseline.path])
        #expect(update.status == BenchExitCode.badInput.rawValue, "\(update.status): \(update.standardError)")
        #expect(update.standardError.contains(column), "\(update.standardError)")
        #expect(!FileManager.default.fileExists(atPath: baseline.path))
    }

    /// `--from` takes the rows as they are: a measuring option beside it would be ignored.
    @Test(arguments: [["--strategy", "data"], ["--runs", "3"], ["--render", "full"]])
    func baselineFromAnExportRefusesMeasuringOptions(extra: [String]) throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.quickRun(in: folder)
        let baseline = folder.appendingPathComponent("baseline.json")
        let update = InProcessBench.run(
            [
                "baseline", "update", "--from", run.appendingPathComponent("trials.json").path,
                "--baseline", baseline.path,
            ] + extra
        )
        #expect(update.status == BenchExitCode.usage.rawValue, "\(update.status): \(update.standardError)")
        #expect(
            update.standardError.contains(extra[0]) && update.standardError.contains("--from"),
            "\(update.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: baseline.path))
    }
}
