import Foundation
import ReferenceDocuments
import Report
import Scenarios
import Testing

/// SCENARIO.md's generator: each settings group its own table, files of mixed settings refused.
/// What the committed results/SCENARIO.md says is checked in ReferenceTests (CommittedScenarioTests).
@Suite struct ScenarioDocumentTests {
    /// Each settings group is its own table: rows of another bandwidth never enter the same medians.
    @Test func rowsOfOtherSettingsAreTheirOwnTable() throws {
        let first = try ListScrollCSV.appending(
            [ListScrollCSVTests.result(cap: 1), ListScrollCSVTests.result(cap: 4)],
            runID: "first",
            to: "",
            path: "s.csv"
        )
        let both = try ListScrollCSV.appending(
            [ListScrollCSVTests.result(cap: 1, bandwidth: 20_000_000)],
            runID: "second",
            to: first,
            path: "s.csv"
        )
        let tables = try ListScrollCSV.peakTables(both, path: "s.csv")
        let settingsLines = tables.split(separator: "\n").filter { $0.hasPrefix("Settings:") }
        #expect(settingsLines.count == 2, "\(tables)")
        #expect(settingsLines.first?.contains("bandwidth_bytes_per_second 10485760") == true)
        #expect(settingsLines.first?.contains("runs: first.") == true)
        #expect(settingsLines.last?.contains("bandwidth_bytes_per_second 20000000") == true)
        #expect(settingsLines.last?.contains("runs: second.") == true)
        #expect(
            tables.split(separator: "\n").filter { $0.hasPrefix("| 1 |") }.count == 2,
            "cap 1 once per group: \(tables)"
        )
    }

    /// A file of speeds may differ in its speed only: rows of another bandwidth appended to it (or
    /// old rows that did not record it) would go into its figures unseen, so the generator refuses it.
    @Test func aFileMixingOtherSettingsThanItsOwnIsRefused() throws {
        let first = try ListScrollCSV.appending(
            [ListScrollCSVTests.result(speed: 5), ListScrollCSVTests.result(speed: 40)],
            runID: "first",
            to: "",
            path: "s.csv"
        )
        #expect(try ScenarioDocument(csvs: [ScenarioDocument.speed: first]).blocks["scenario-speed"] != nil)
        let mixed = try ListScrollCSV.appending(
            [ListScrollCSVTests.result(bandwidth: nil, speed: 10)],
            runID: "second",
            to: first,
            path: "s.csv"
        )
        #expect(
            throws: ScenarioError.settingsBeyond(
                path: ScenarioDocument.speed,
                varying: ["rows_per_second"],
                differing: ["bandwidth_bytes_per_second: 10485760 / (none)"]
            )
        ) {
            try ScenarioDocument(csvs: [ScenarioDocument.speed: mixed])
        }
    }

    /// The figures of known rows: medians of the runs, what download saves against data, ranges over the caps.
    @Test func figuresAreTheMediansOfTheirCells() throws {
        func run(_ strategy: ScrollStrategy, cap: Int, peakMB: Int, ttiMillis: Double, sentMB: Int) -> ScrollResult {
            var result = ListScrollCSVTests.result(strategy, cap: cap)
            result.baselineRSSBytes = 30_000_000
            result.peakRSSBytes = 30_000_000 + peakMB * 1_000_000
            result.timeToImageMedianMillis = ttiMillis
            result.timeToImageMaxMillis = ttiMillis * 10
            result.bytesSent = sentMB * 1_000_000
            result.bytesDelivered = sentMB * 500_000
            (result.requestsStarted, result.requestsCompleted, result.requestsCancelled) = (0, 0, 0)
            return result
        }
        let rows = [
            run(.data, cap: 1, peakMB: 30, ttiMillis: 400, sentMB: 70),
            run(.data, cap: 1, peakMB: 40, ttiMillis: 380, sentMB: 72),
            run(.data, cap: 1, peakMB: 32, ttiMillis: 384, sentMB: 71),
            run(.download, cap: 1, peakMB: 5, ttiMillis: 392, sentMB: 71),
            run(.download, cap: 4, peakMB: 6, ttiMillis: 108, sentMB: 190),
            run(.data, cap: 4, peakMB: 41, ttiMillis: 100, sentMB: 200),
        ]
        let text = try ListScrollCSV.appending(rows, runID: "r", to: "", path: "s.csv")
        let figures = try ScenarioDocument(csvs: [ScenarioDocument.caps: text])
        #expect(
            figures.values["scenario_data_thumbnail_cap1_peak_mb"] == "32.0",
            "the median of 30, 40, 32, not their mean"
        )
        #expect(figures.values["scenario_data_thumbnail_cap1_tti_median_ms"] == "384")
        #expect(figures.values["scenario_data_thumbnail_cap1_tti_max_ms"] == "3840")
        #expect(figures.values["scenario_download_thumbnail_cap4_tti_median_ms"] == "108")
        #expect(figures.values["scenario_download_thumbnail_cap4_wasted_mb"] == "95")
        #expect(figures.values["scenario_saving_thumbnail_cap1_mb"] == "27")
        #expect(figures.values["scenario_saving_thumbnail_cap4_mb"] == "35")
        #expect(figures.values["scenario_data_thumbnail_peak_range_mb"] == "32–41")
        #expect(figures.values["scenario_download_thumbnail_peak_range_mb"] == "5–6")
        #expect(figures.values["scenario_largest_bitmap_mb"] == "96", "6000x4000 at 4 bytes a pixel")
        let requests = try #require(figures.blocks["scenario-requests"])
        #expect(requests.contains("| 4 | 0 / 0 / 0 | 190.0 | 95.0 |"), "\(requests)")
    }

    /// A scroll whose child left no report shows "–" where the child measured, in the fault and memory
    /// limit tables alike, never a 0 that reads as measured.
    @Test func whatTheChildDidNotMeasureIsADash() throws {
        var crashed = ListScrollCSVTests.result(.download)
        crashed.status = .crashed
        crashed.error = "child left no report: child killed by signal 6 (Aborted)"
        crashed.bytesSent = 2_000_000
        var measured = crashed
        measured.status = .ok
        measured.error = ""
        (measured.baselineHeapBytes, measured.peakHeapBytes, measured.durationSeconds) = (1_000_000, 4_000_000, 2.5)
        var faults = ""
        for (result, retries) in [(crashed, 0), (measured, 2)] {
            var row = result
            row.spec.fault = .truncate
            row.spec.faultEvery = 4
            row.spec.retries = retries
            faults = try ListScrollCSV.appending([row], runID: "r", to: faults, path: ScenarioDocument.faults)
        }
        var limited = crashed
        limited.spec.memoryLimitBytes = 100 << 20
        let memory = try ListScrollCSV.appending([limited], runID: "r", to: "", path: ScenarioDocument.memoryLimit)
        let figures = try ScenarioDocument(csvs: [
            ScenarioDocument.faults: faults, ScenarioDocument.memoryLimit: memory,
        ])
        let faultRows = try #require(figures.blocks["scenario-faults"]).split(separator: "\n").filter {
            $0.hasPrefix("| truncate")
        }
        #expect(faultRows.count == 2)
        #expect(faultRows.first?.contains("| 2.0 | – / – / – / – | – | – | – | – | – | 0 |") == true, "\(faultRows)")
        #expect(faultRows.last?.contains("| 3.0 | 2.5 |") == true, "\(faultRows)")
        #expect(figures.values["scenario_fault_truncate_retries0_heap_mb"] == "–")
        #expect(figures.values["scenario_fault_truncate_retries0_duration_s"] == "–")
        #expect(figures.values["scenario_mem100_download_thumbnail_peak_mb"] == "–")
        let memoryRow = try #require(figures.blocks["scenario-memory-limit"]).split(separator: "\n").first {
            $0.hasPrefix("| 100 ")
        }
        #expect(
            memoryRow?.contains("| crashed: ") == true && memoryRow?.contains("| – |") == true,
            "\(memoryRow ?? "")"
        )
    }

    /// A folder of the previous format (format 1) holds the scroll's files as scenario*.csv: they are
    /// read as list-scroll*.csv are, and a folder that holds both is read by its current names.
    @Test func aFolderOfThePreviousFormatIsReadByItsOldNames() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-document-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let caps = try ListScrollCSV.appending([ListScrollCSVTests.result(cap: 1)], runID: "r", to: "", path: "")
        let speeds = try ListScrollCSV.appending(
            [ListScrollCSVTests.result(speed: 5), ListScrollCSVTests.result(speed: 40)],
            runID: "r",
            to: "",
            path: ""
        )
        try caps.write(to: folder.appendingPathComponent("scenario.csv"), atomically: true, encoding: .utf8)
        try speeds.write(to: folder.appendingPathComponent("scenario-speed.csv"), atomically: true, encoding: .utf8)
        let previous = try ScenarioDocument(folder: folder)
        #expect(
            previous.blocks["scenario-peaks"]
                == (try ScenarioDocument(csvs: [ScenarioDocument.caps: caps]).blocks["scenario-peaks"])
        )
        #expect(previous.values["scenario_speed5_data_peak_mb"] != nil, "\(previous.values.keys.sorted())")

        let current = try ListScrollCSV.appending([ListScrollCSVTests.result(cap: 16)], runID: "s", to: "", path: "")
        try current.write(to: folder.appendingPathComponent(ListScrollCSV.fileName), atomically: true, encoding: .utf8)
        #expect(try ScenarioDocument(folder: folder).blocks["scenario-peaks"]?.contains("runs: s.") == true)
    }
}
