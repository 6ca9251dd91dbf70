import BenchCore
import Foundation
import TestSupport
import Testing

/// What a hostile pass found in the naming of holders: a symbolizer that hangs or floods must not
/// cost a run its rows; without one, holders are not all named after the malloc wrapper; reading
/// the holders must not become part of the peak they describe.
@Suite(.serialized) struct HolderNamingFaultsTests {
    static let quick = [
        "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "1", "--width", "600", "--height",
        "400",
    ]

    static func script(_ body: String) throws -> URL {
        let url = BenchProcess.temporaryFolder().appendingPathExtension("sh")
        try "#!/bin/sh\n\(body)\n".write(to: url, atomically: true, encoding: .utf8)
        chmod(url.path, 0o755)
        return url
    }

    /// Runs `quick` into a scratch folder with the script `body` as BENCH_LLVM_SYMBOLIZER (and
    /// `environment`), then `check` with its output and folder; the script and folder are removed after.
    static func quickRun(
        symbolizer body: String,
        environment: [String: String] = [:],
        timeout: TimeInterval,
        _ check: (CommandOutput, URL) throws -> Void
    ) throws {
        let symbolizer = try script(body)
        let folder = BenchProcess.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: symbolizer)
        }
        let output = try BenchProcess.run(
            quick + ["--out", folder.path],
            extraEnvironment: environment.merging(["BENCH_LLVM_SYMBOLIZER": symbolizer.path]) { $1 },
            timeout: timeout
        )
        try check(output, folder)
    }

    /// `yes` floods, `sleep` hangs: each is killed (past 64 MiB, or after its time limit, 3 s here
    /// through BENCH_SYMBOLIZER_TIMEOUT), said once on stderr, and every file of the run is written
    /// with its rows.
    @Test(arguments: ["exec yes 0123456789abcdef", "exec sleep 1000"])
    func aHostileSymbolizerIsKilledAndTheRunKeepsItsRows(body: String) throws {
        let limit = ["BENCH_SYMBOLIZER_TIMEOUT": "3"]
        try Self.quickRun(symbolizer: body, environment: limit, timeout: 120) { output, folder in
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardError.contains("holders are named without it"), "\(output.standardError)")
            let trials = try TrialsCSV.parse(
                String(contentsOf: folder.appendingPathComponent("trials.csv"), encoding: .utf8)
            )
            #expect(trials.count == 1 && trials.allSatisfy(\.isSuccess))
            let holders = try HoldersCSV.parse(
                String(contentsOf: folder.appendingPathComponent("holders.csv"), encoding: .utf8)
            )
            #expect(holders.first?.totalBytes == trials.first?.peakHeapExactBytes)
        }
    }

    /// Without llvm-symbolizer the names are dladdr's: FoundationNetworking's blocks are still its
    /// own, not the malloc wrapper's static helper inside bench.
    @Test func withoutASymbolizerHoldersAreNotNamedAfterTheWrapper() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run(
            ["--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "1", "--out", folder.path],
            extraEnvironment: ["BENCH_LLVM_SYMBOLIZER": "/nonexistent"]
        )
        #expect(output.status == 0, "\(output.standardError)")
        let run = try #require(
            try HoldersCSV.parse(String(contentsOf: folder.appendingPathComponent("holders.csv"), encoding: .utf8))
                .first
        )
        #expect(run.holders.count == 2, "\(run.holders.map(\.allocatedBy))")
        for holder in run.holders {
            #expect(holder.module == "libFoundationNetworking.so", "\(holder.allocatedBy) in \(holder.module)")
            #expect(!holder.stack.contains("malloc") && !holder.stack.contains("realloc"), "\(holder.stack)")
        }
    }

    /// Every block recorded (threshold 1 byte): the buffer the child reads its holders into comes
    /// after the window and is not among them; the holders never exceed the exact heap peak.
    @Test func readingTheHoldersIsNotPartOfThePeak() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run(
            Self.quick + ["--render", "full", "--holder-threshold", "1", "--out", folder.path]
        )
        #expect(output.status == 0, "\(output.standardError)")
        let trials = try TrialsCSV.parse(
            String(contentsOf: folder.appendingPathComponent("trials.csv"), encoding: .utf8)
        )
        let runs = try HoldersCSV.parse(
            String(contentsOf: folder.appendingPathComponent("holders.csv"), encoding: .utf8)
        )
        #expect(runs.count == trials.count)
        for run in runs {
            #expect(
                !run.holders.contains {
                    $0.allocatedBy.contains("PeakBlocks") || $0.stack.contains { $0.contains("PeakBlocks.atPeak") }
                },
                "\(run.cell): \(run.holders.prefix(3).map(\.allocatedBy))"
            )
            #expect(run.smallBlocksBytes >= 0)
        }
    }

    /// A table size that is not a whole number in range leaves the whole table (nothing dropped).
    @Test func aMalformedTableSizeIsIgnored() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run(
            ["--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "1", "--out", folder.path],
            extraEnvironment: ["BENCH_HOLDER_TABLE_SIZE": "abc"]
        )
        #expect(output.status == 0, "\(output.standardError)")
        let csv = try String(contentsOf: folder.appendingPathComponent("holders.csv"), encoding: .utf8)
        #expect(!csv.contains("did not record"), "\(csv)")
    }

    /// `bench report --report-file <a FIFO nobody reads>` is refused before anything is written.
    @Test func aReportFileThatCannotBeWrittenIsRefusedBeforeTheChartData() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let measured = try BenchProcess.run(Self.quick + ["--out", folder.path])
        #expect(measured.status == 0, "\(measured.standardError)")
        let fifo = folder.appendingPathComponent("report.fifo")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let data = folder.appendingPathComponent("data")
        let output = InProcessBench.run([
            "report", "--results", folder.path, "--report-file", fifo.path, "--data-out", data.path,
        ])
        #expect(output.status == 73, "\(output.standardError)")
        #expect(!FileManager.default.fileExists(atPath: data.path), "chart data written before the refusal")
    }
}
