import BenchCore
import Foundation
import Scenarios
import TestSupport
import Testing

/// Real `bench` processes: rows of invocations with different settings stay apart in scenario.csv,
/// and `bench report` refuses to chart a scenario.csv that mixes them.
@Suite(.serialized) struct ScenarioProvenanceTests {
    static func bench(_ arguments: [String]) throws -> (status: Int32, standardError: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: benchExecutable())
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    static func scratch(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
    }

    /// Two invocations into one folder with different --bandwidth are two settings groups: each row
    /// records the bandwidth it was measured with, and the second invocation says the folder is mixed.
    @Test func twoInvocationsWithOtherBandwidthsAreTwoGroups() throws {
        let folder = Self.scratch("scenario-provenance")
        defer { try? FileManager.default.removeItem(at: folder) }
        let common = [
            "scenario", "list-scroll", "--sizes", "64x48,96x64", "--rows", "4", "--visible", "2", "--speed", "100",
            "--strategy", "download", "--render", "thumbnail", "--timeout", "60",
            "--fixture-cache", folder.appendingPathComponent("fixtures").path, "--out",
            folder.appendingPathComponent("out").path,
        ]
        let first = try Self.bench(common + ["--bandwidth", "10M"])
        #expect(first.status == 0, "\(first.standardError)")
        let second = try Self.bench(common + ["--bandwidth", "20M"])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardError.contains("now holds rows of 2 different settings"), "\(second.standardError)")

        let csv = folder.appendingPathComponent("out/scenario.csv")
        let groups = try ScenarioCSV.groups(try String(contentsOf: csv, encoding: .utf8), path: csv.path)
        try #require(groups.count == 2)
        #expect(groups.map { $0.rows.map { $0["bandwidth_bytes_per_second"] } } == [["10000000"], ["20000000"]])
        #expect(groups.allSatisfy { $0.rows.allSatisfy { $0["sizes"] == "64x48 96x64" } })
        #expect(groups[0].runIDs.count == 1 && groups[1].runIDs.count == 1 && groups[0].runIDs != groups[1].runIDs)
    }

    /// `bench report` (make plots, make reference) draws scenario.csv as one setting: mixed, it exits 65 naming what differs.
    @Test func reportRefusesAScenarioCSVOfMixedSettings() throws {
        let folder = Self.scratch("scenario-report")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["trials.csv", "trials.json"] {
            try FileManager.default.copyItem(
                at: ScenarioCSVTests.results.appendingPathComponent(name),
                to: folder.appendingPathComponent(name)
            )
        }
        let report = [
            "report", "--results", folder.path, "--data-out", folder.appendingPathComponent("data").path, "--no-report",
        ]
        let one = try ScenarioCSV.appending(
            [ScenarioCSVTests.result(cap: 1), ScenarioCSVTests.result(.download, cap: 4)],
            runID: "first",
            to: "",
            path: ""
        )
        try one.write(to: folder.appendingPathComponent("scenario.csv"), atomically: true, encoding: .utf8)
        let accepted = try Self.bench(report)
        #expect(accepted.status == 0, "\(accepted.standardError)")

        let mixed = try ScenarioCSV.appending(
            [ScenarioCSVTests.result(cap: 1, speed: 5)],
            runID: "second",
            to: one,
            path: ""
        )
        try mixed.write(to: folder.appendingPathComponent("scenario.csv"), atomically: true, encoding: .utf8)
        let refused = try Self.bench(report)
        #expect(refused.status == 65, "\(refused.standardError)")
        #expect(
            refused.standardError.contains("mixes rows of 2 different settings (rows_per_second: 20.0 / 5.0)"),
            "\(refused.standardError)"
        )
    }
}
