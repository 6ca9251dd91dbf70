import BenchCore
import Foundation
import Scenarios
import TestSupport
import Testing

/// `bench report` (make plots, make reference) draws a folder's list-scroll rows as one setting: it
/// refuses rows of several, naming what differs. In-process (`ListScrollCSV.checkOneSetting`, what
/// the command calls), and one real `bench report` for its exit status.
@Suite struct ScenarioProvenanceTests {
    static func scratch(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(name)-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Rows of two caps (one setting), then a row of another speed appended by a second invocation.
    static func files() throws -> (one: String, mixed: String) {
        let one = try ListScrollCSV.appending(
            [ListScrollCSVTests.result(cap: 1), ListScrollCSVTests.result(.download, cap: 4)],
            runID: "first",
            to: "",
            path: ""
        )
        let mixed = try ListScrollCSV.appending(
            [ListScrollCSVTests.result(cap: 1, speed: 5)],
            runID: "second",
            to: one,
            path: ""
        )
        return (one, mixed)
    }

    static let mixedMessage = "mixes rows of 2 different settings (rows_per_second: 20.0 / 5.0)"

    /// list-scroll.csv, and a folder of the previous format's scenario.csv alike.
    @Test(arguments: [ListScrollCSV.fileName, ListScrollCSV.previousFileName])
    func rowsOfMixedSettingsAreRefusedNamingWhatDiffers(name: String) throws {
        let folder = try Self.scratch("scenario-report")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (one, mixed) = try Self.files()
        let url = folder.appendingPathComponent(name)
        try ListScrollCSV.checkOneSetting(in: folder)
        try one.write(to: url, atomically: true, encoding: .utf8)
        try ListScrollCSV.checkOneSetting(in: folder)
        try mixed.write(to: url, atomically: true, encoding: .utf8)
        #expect {
            try ListScrollCSV.checkOneSetting(in: folder)
        } throws: { error in
            String(describing: error).contains("\(url.path) \(Self.mixedMessage)")
        }
    }

    /// The real `bench report` exits 65 on such a folder, naming what differs.
    @Test func reportExits65OnMixedSettings() throws {
        let folder = try Self.scratch("scenario-report")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A run's folder: one trials.csv row is what bench report needs beside the scroll's file.
        var trial = TrialResult(cell: TrialCell(strategy: "data", render: .none, allocator: .system), run: 1, pid: 1)
        (trial.status, trial.payloadBytes, trial.baselineRSSBytes, trial.peakRSSBytes) = (.ok, 1000, 1 << 20, 2 << 20)
        try (CSV.line(TrialsCSV.header(runID: "r")) + "\n" + TrialsCSV.line(trial, runID: "r")).write(
            to: folder.appendingPathComponent(TrialsCSV.fileName),
            atomically: true,
            encoding: .utf8
        )
        try Self.files().mixed.write(
            to: folder.appendingPathComponent(ListScrollCSV.fileName),
            atomically: true,
            encoding: .utf8
        )
        let output = try BenchProcess.run([
            "report", "--results", folder.path, "--data-out", folder.appendingPathComponent("data").path, "--no-report",
        ])
        #expect(output.status == 65, "\(output.standardError)")
        #expect(output.standardError.contains(Self.mixedMessage), "\(output.standardError)")
    }
}
