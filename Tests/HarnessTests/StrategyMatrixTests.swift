import Foundation
import Strategies
import TestSupport
import Testing

/// `bench --strategy all` through the real binary: every strategy is listed, runs in its own
/// child, and appears in the ranked summary and the copies table.
@Suite(.serialized) struct StrategyMatrixTests {
    @Test func listDescribesEveryStrategyOnOneLine() throws {
        let output = try BenchProcess.run(["list"])
        #expect(output.status == 0)
        for strategy in StrategyCatalog.all {
            let line = output.standardOutput.split(separator: "\n").first { $0.hasPrefix("  \(strategy.name) ") }
            #expect(line?.contains(strategy.summary) == true, "\(strategy.name)")
        }
    }

    @Test func unknownStrategyListsEveryValidName() throws {
        let output = try BenchProcess.run(["--strategy", "carrier-pigeon"])
        #expect(output.status == 64)
        #expect(
            output.standardError.contains("valid: " + (StrategyCatalog.names + ["all"]).joined(separator: ", ") + "\n"),
            "\(output.standardError)"
        )
    }

    @Test func aCalibrationStrategyIsRefusedWhereItIsNotMeasured() throws {
        let output = try BenchProcess.run(["sweep", "--strategy", CalibrationSpikeStrategy.name])
        #expect(output.status == 64)
        #expect(output.standardError.contains("'\(CalibrationSpikeStrategy.name)' is a calibration strategy"))
    }

    @Test func allStrategiesRunAndAreRanked() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run([
            "--strategy", "all", "--render", "none", "--allocator", "system",
            "--runs", "1", "--out", folder.path,
        ])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n").map(String.init)

        // Summary rows ("cell [allocator] ok median ...") come in rank order: medians never decrease.
        // (The holders under the tables name the cells too: only the summary table is read here.)
        let summaryRows = lines.prefix { !$0.hasPrefix("Bytes held per payload byte") }.filter {
            $0.contains("+none [system]")
        }
        #expect(summaryRows.count == StrategyCatalog.names.count)
        let medians = summaryRows.compactMap { row in
            row.split(separator: " ").dropFirst(3).first.flatMap { Double($0) }
        }
        #expect(medians.count == summaryRows.count)
        #expect(medians == medians.sorted(), "\(medians)")

        // One "copies" row per strategy, with a number.
        let copiesStart = try #require(lines.firstIndex { $0.hasPrefix("Bytes held per payload byte") })
        let copies = lines[(copiesStart + 3)...].prefix(StrategyCatalog.names.count)
        #expect(
            Set(copies.compactMap { $0.split(separator: " ").first.map(String.init) }) == Set(StrategyCatalog.names)
        )
        for row in copies {
            #expect(row.split(separator: " ").last.flatMap { Double($0) } != nil, "\(row)")
        }
        // Progress goes to stderr even when it is not a terminal: at least the last trial's line.
        #expect(output.standardError.contains("[\(StrategyCatalog.names.count)/\(StrategyCatalog.names.count)]"))
    }
}
