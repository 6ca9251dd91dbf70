import BenchCore
import Foundation
import Measuring
import Scenarios
import TestSupport
import Testing

/// What an image-server folder holds after a stop, read back without a process: a run is done once
/// its server.csv row is there; the files beside it keep only the rows of done runs.
@Suite struct ServerRunFilesTests {
    static func result(concurrency: Int, run: Int = 1) -> ServerResult {
        var result = ServerResult(
            strategy: "download",
            render: .stream,
            allocator: .system,
            concurrency: concurrency,
            renderThreads: 2,
            run: run,
            fixture: "1600x1200"
        )
        result.requests = (0..<2).map { RequestRecord(index: $0, status: 200, bytes: 1000, latencySeconds: 0.01) }
        result.report.maxInFlight = concurrency
        result.report.stagesAtHeapPeak.inFlight = concurrency
        (result.report.baselineHeapBytes, result.report.peakHeapBytes, result.report.heapIsExact) = (0, 1000, true)
        (result.report.baselineRSSBytes, result.report.peakRSSBytes) = (1_000_000, 2_000_000)
        result.report.residency = [ResidencyRow(moment: .rssPeak, category: .heapHolders, bytes: 500)]
        return result
    }

    static func write(_ name: String, _ text: String, in folder: URL) throws {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }

    static func lines(_ name: String, in folder: URL) throws -> [String] {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).split(separator: "\n").map(
            String.init
        )
    }

    /// Three runs appended their requests and residency; server.csv holds the first two whole and the
    /// third's row cut short by a kill: two runs are done, and the third's rows go from the other files.
    @Test func aRunIsDoneOnceItsServerRowIsWhole() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let runs = [1, 2, 4].map { Self.result(concurrency: $0) }
        let header = { (columns: [String]) in CSV.line(columns) + "\n" }
        try Self.write(
            RequestsCSV.fileName,
            header(WrittenColumn.header(RequestsCSV.columns, runID: true))
                + runs.map { WrittenColumn.lines(RequestsCSV.columns, rows: RequestsCSV.rows(of: $0), runID: "R") }
                .joined(),
            in: folder
        )
        try Self.write(
            ServerResidencyCSV.fileName,
            header(WrittenColumn.header(ServerResidencyCSV.columns, runID: true))
                + runs.map {
                    WrittenColumn.lines(ServerResidencyCSV.columns, rows: ServerResidencyCSV.rows(of: $0), runID: "R")
                }.joined(),
            in: folder
        )
        let third = WrittenColumn.lines(ServerCSV.columns, rows: [runs[2]], runID: "R")
        try Self.write(
            ServerCSV.fileName,
            header(ServerRunFiles.serverHeader)
                + WrittenColumn.lines(ServerCSV.columns, rows: runs, runID: "R")
                .split(separator: "\n").prefix(2).map { $0 + "\n" }.joined() + third.prefix(third.count / 2),
            in: folder
        )

        let done = try ServerRunFiles.done(in: folder, runID: "R")
        #expect(done.keys == runs.prefix(2).map(ServerRunFiles.key))
        #expect(done.points.count == 2 && done.failed == 0)
        try ServerRunFiles.dropRunsNotIn(Set(done.keys), in: folder)
        #expect(try Self.lines(RequestsCSV.fileName, in: folder).count == 1 + 2 * 2)
        #expect(try Self.lines(ServerResidencyCSV.fileName, in: folder).count == 1 + 2)
        #expect(try Self.lines(ServerResidencyCSV.fileName, in: folder).dropFirst().allSatisfy { !$0.contains(",4,") })

        // Rows of another run, or a run twice, are not one run's folder.
        #expect(throws: ServerRunFiles.Failure.self) { try ServerRunFiles.done(in: folder, runID: "S") }
        let once = WrittenColumn.lines(ServerCSV.columns, rows: [runs[0]], runID: "R")
        try Self.write(ServerCSV.fileName, header(ServerRunFiles.serverHeader) + once + once, in: folder)
        #expect(throws: ServerRunFiles.Failure.self) { try ServerRunFiles.done(in: folder, runID: "R") }
    }
}

/// `--resume`, `--shard` and `bench merge` of the image server, with real server children.
@Suite(.serialized) struct ServerLifecycleTests {
    static let arguments = [
        "scenario", "image-server", "--strategy", "data,download", "--render", "none,stream", "--concurrency", "1",
        "--runs", "1", "--requests", "2", "--width", "800", "--height", "600",
        "--fixture-cache", testFixtureCache("image-server").path,
    ]

    static func table(_ file: URL) throws -> [[String: String]] {
        let rows = try CSV.parse(String(contentsOf: file, encoding: .utf8)).filter { $0 != [""] }
        return rows.dropFirst().map { Dictionary(zip(rows[0], $0), uniquingKeysWith: { first, _ in first }) }
    }

    static func keys(_ rows: [[String: String]]) -> [String] {
        rows.map { row in ServerCSV.keyColumns.map { row[$0] ?? "" }.joined(separator: "/") }
    }

    /// A run stopped after its first server run (the second's row torn) goes on with --resume: the
    /// first run's row stays as it was, the others are measured, and every run's requests are there once.
    @Test func resumeMeasuresOnlyTheRunsServerCSVLacks() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let first = try BenchProcess.run(Self.arguments + ["--out", out.path])
        #expect(first.status == 0, "\(first.standardError)")
        let server = out.appendingPathComponent(ServerCSV.fileName)
        let lines = try String(contentsOf: server, encoding: .utf8).split(separator: "\n")
        try #require(lines.count == 5)
        try Data((lines.prefix(2).joined(separator: "\n") + "\n" + lines[2].prefix(20)).utf8).write(to: server)
        let kept = try Self.table(server)

        let resumed = try BenchProcess.run(Self.arguments + ["--out", out.path, "--resume"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("1 of 4 server runs done, 3 to go"), "\(resumed.standardError)")
        let rows = try Self.table(server)
        #expect(Set(Self.keys(rows)).count == 4 && rows.count == 4)
        #expect(rows.first == kept.first)
        let requests = try Self.table(out.appendingPathComponent(RequestsCSV.fileName))
        #expect(requests.count == 4 * 2)
        #expect(Set(requests.map { Self.keys([$0])[0] + "#" + ($0["request"] ?? "") }).count == 4 * 2)
    }

    /// Two shards, each measuring its cells whole, merge into the run one machine would have written,
    /// whose chart `bench report` draws; one shard alone is refused (7) as incomplete work.
    @Test func shardsMergeIntoOneServerFolder() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var shardKeys: [String] = []
        for index in 1...2 {
            let out = folder.appendingPathComponent("shard-\(index)")
            let shard = try BenchProcess.run(Self.arguments + ["--shard", "\(index)/2", "--out", out.path])
            #expect(shard.status == 0, "\(shard.standardError)")
            shardKeys += Self.keys(try Self.table(out.appendingPathComponent(ServerCSV.fileName)))
        }
        #expect(shardKeys.count == 4 && Set(shardKeys).count == 4)

        let merged = folder.appendingPathComponent("merged")
        let lonely = try BenchProcess.run([
            "merge", folder.appendingPathComponent("shard-1").path, "--out", merged.path,
        ])
        #expect(lonely.status == 7, "\(lonely.standardError)")
        let merge = try BenchProcess.run(
            [
                "merge", folder.appendingPathComponent("shard-1").path, folder.appendingPathComponent("shard-2").path,
                "--out", merged.path,
            ]
        )
        #expect(merge.status == 0, "\(merge.standardError)")
        let rows = try Self.table(merged.appendingPathComponent(ServerCSV.fileName))
        #expect(Set(Self.keys(rows)) == Set(shardKeys) && rows.count == 4)
        #expect(Set(rows.map { $0[TrialsCSV.runIDColumn] ?? "" }).count == 1)
        #expect(try Self.table(merged.appendingPathComponent(RequestsCSV.fileName)).count == 4 * 2)
        let slopes = try Self.table(merged.appendingPathComponent(ServerSlopesCSV.fileName))
        #expect(slopes.count == 4, "a line per cell: \(slopes.count)")

        // `bench report` (make plots) writes the merged run's chart data: a block per cell.
        let report = try BenchProcess.run(["report", "--results", merged.path])
        #expect(report.status == 0, "\(report.standardError)")
        let chart = try String(contentsOf: merged.appendingPathComponent("charts/data/server.dat"), encoding: .utf8)
        #expect(chart.split(separator: "\n").filter { $0.hasPrefix("# ") }.count == 4, "\(chart)")
    }
}
