import Foundation
import Report
import Scenarios
import Testing

/// results/SCENARIO.md's peak table is generated from the committed scenario.csv (`bench report
/// --results results`, which `make reference` runs), one table per settings group.
@Suite struct ScenarioDocumentTests {
    @Test func regeneratingTheTablesFromTheCommittedCSVChangesNothing() throws {
        let results = ScenarioCSVTests.results
        let document = try String(contentsOf: results.appendingPathComponent("SCENARIO.md"), encoding: .utf8)
        let csv = try String(contentsOf: results.appendingPathComponent("scenario.csv"), encoding: .utf8)
        let regenerated = try GeneratedSections.apply(to: document, blocks: ["scenario-peaks": try ScenarioCSV.peakTables(csv, path: "scenario.csv")],
                                                      values: [:])
        #expect(regenerated == document, "SCENARIO.md is stale: run bench report --results results")
    }

    /// Old: rows of another bandwidth went into the same medians. Each settings group is its own table.
    @Test func rowsOfOtherSettingsAreTheirOwnTable() throws {
        let first = try ScenarioCSV.appending([ScenarioCSVTests.result(cap: 1), ScenarioCSVTests.result(cap: 4)], runID: "first", to: "", path: "s.csv")
        let both = try ScenarioCSV.appending([ScenarioCSVTests.result(cap: 1, bandwidth: 20_000_000)], runID: "second", to: first, path: "s.csv")
        let tables = try ScenarioCSV.peakTables(both, path: "s.csv")
        let settingsLines = tables.split(separator: "\n").filter { $0.hasPrefix("Settings:") }
        #expect(settingsLines.count == 2, "\(tables)")
        #expect(settingsLines.first?.contains("bandwidth_bytes_per_second 10485760") == true)
        #expect(settingsLines.first?.contains("runs: first.") == true)
        #expect(settingsLines.last?.contains("bandwidth_bytes_per_second 20000000") == true)
        #expect(settingsLines.last?.contains("runs: second.") == true)
        #expect(tables.split(separator: "\n").filter { $0.hasPrefix("| 1 |") }.count == 2, "cap 1 once per group: \(tables)")
    }
}
