import BenchCore
import Foundation
import Scenarios
import TestSupport
import Testing

@Suite struct ListScrollCSVTests {
    /// A result of the given settings, nothing measured.
    static func result(
        _ strategy: ScrollStrategy = .data,
        cap: Int = 4,
        bandwidth: Int? = 10 << 20,
        sizes: [String] = ["6000x4000", "800x600"],
        speed: Double = 20
    ) -> ScrollResult {
        let spec = ScrollSpec(
            strategy: strategy,
            render: .thumbnail,
            rowURLs: Array(repeating: URL(string: "http://127.0.0.1/row.jpg")!, count: 60),
            warmupURL: nil,
            visibleRows: 8,
            rowsPerSecond: speed,
            maxConcurrent: cap,
            cacheLimitBytes: 0,
            workDirectory: URL(fileURLWithPath: "/tmp")
        )
        var result = ScrollResult(spec: spec)
        result.bandwidthBytesPerSecond = bandwidth
        result.fixtureSizes = sizes
        return result
    }

    @Test func aFileWithOtherColumnsIsRefusedByPath() {
        #expect(throws: ScenarioError.foreignColumns(path: "old/list-scroll.csv")) {
            try ListScrollCSV.appending([], runID: "r", to: "strategy,rows\ndata,10\n", path: "old/list-scroll.csv")
        }
        #expect(throws: ScenarioError.foreignColumns(path: "old/list-scroll.csv")) {
            try ListScrollCSV.groups("strategy,rows\ndata,10\n", path: "old/list-scroll.csv")
        }
    }

    @Test func aNewFileStartsWithTheHeader() throws {
        #expect(try ListScrollCSV.appending([], runID: "r", to: "", path: "new.csv") == ListScrollCSV.header + "\n")
    }

    /// What the child did not report is an empty cell, as in every file of the harness; what it
    /// measured, zero included, is written.
    @Test func whatTheChildDidNotMeasureIsAnEmptyCell() throws {
        func cells(_ result: ScrollResult) throws -> [String: String] {
            let table = try CSV.parse(try ListScrollCSV.appending([result], runID: "r", to: "", path: "s.csv"))
            return Dictionary(uniqueKeysWithValues: zip(table[0], table[1]))
        }
        let childMeasured = [
            "baseline_rss_bytes", "peak_rss_bytes", "final_rss_bytes", "baseline_heap_bytes", "peak_heap_bytes",
            "final_heap_bytes", "bytes_delivered", "bytes_wasted", "requests_started", "requests_completed",
            "requests_cancelled", "requests_failed", "requests_retried", "rows_fallback", "rows_entered", "rows_shown",
            "cache_hits", "cache_evictions", "cache_final_bytes", "orphaned_files_removed", "duration_s",
        ]
        var killed = Self.result()
        killed.status = .crashed
        killed.bytesSent = 1_000
        let unreported = try cells(killed)
        for column in childMeasured { #expect(unreported[column] == "", "\(column)") }
        #expect(unreported["bytes_sent"] == "1000")
        var measured = killed
        measured.status = .ok
        measured.baselineRSSBytes = 0
        measured.requestsStarted = 0
        measured.bytesDelivered = 400
        measured.durationSeconds = 1.5
        let reported = try cells(measured)
        #expect(reported["baseline_rss_bytes"] == "0")
        #expect(reported["requests_started"] == "0")
        #expect(reported["bytes_wasted"] == "600")
        #expect(reported["duration_s"] == "1.500")
    }

    /// Every row says what produced it: bandwidth, sizes and the invocation's run id included.
    @Test func everyRowCarriesItsSettingsAndRunID() throws {
        let text = try ListScrollCSV.appending([Self.result()], runID: "2026-11-23T20-00-00Z-42", to: "", path: "s.csv")
        let table = try CSV.parse(text)
        let row = Dictionary(uniqueKeysWithValues: zip(table[0], table[1]))
        #expect(row["bandwidth_bytes_per_second"] == "10485760")
        #expect(row["sizes"] == "6000x4000 800x600")
        #expect(
            row["max_image_pixels"]
                == String(
                    ScrollSpec(
                        strategy: .data,
                        render: .full,
                        rowURLs: [],
                        warmupURL: nil,
                        visibleRows: 1,
                        rowsPerSecond: 1,
                        maxConcurrent: 1,
                        cacheLimitBytes: 0,
                        workDirectory: URL(fileURLWithPath: "/")
                    ).maxImagePixels
                )
        )
        #expect(row["run_id"] == "2026-11-23T20-00-00Z-42")
    }

    /// Rows appended by an invocation with another --bandwidth (or --sizes) are a settings group of
    /// their own, never part of the first's; a reader that wants one group refuses the mix, naming what differs.
    @Test func aSecondInvocationWithOtherSettingsDoesNotMergeIntoTheFirstsGroups() throws {
        let first = try ListScrollCSV.appending(
            [Self.result(cap: 1), Self.result(cap: 4)],
            runID: "first",
            to: "",
            path: "s.csv"
        )
        let both = try ListScrollCSV.appending(
            [Self.result(cap: 1, bandwidth: 20 << 20)],
            runID: "second",
            to: first,
            path: "s.csv"
        )
        let groups = try ListScrollCSV.groups(both, path: "s.csv")
        try #require(groups.count == 2)
        #expect(groups.map(\.rows.count) == [2, 1])
        #expect(groups.map(\.runIDs) == [["first"], ["second"]])
        #expect(
            groups.map {
                Dictionary(uniqueKeysWithValues: $0.settings.map { ($0.column, $0.value) })[
                    "bandwidth_bytes_per_second"
                ]
            }
                == ["10485760", "20971520"]
        )
        #expect(
            throws: ScenarioError.mixedSettings(
                path: "s.csv",
                groups: 2,
                differing: ["bandwidth_bytes_per_second: 10485760 / 20971520"]
            )
        ) {
            try ListScrollCSV.singleGroup(both, path: "s.csv")
        }

        let otherSizes = try ListScrollCSV.appending(
            [Self.result(sizes: ["64x48"])],
            runID: "third",
            to: first,
            path: "s.csv"
        )
        #expect(try ListScrollCSV.groups(otherSizes, path: "s.csv").count == 2)
        let unthrottled = try ListScrollCSV.appending(
            [Self.result(bandwidth: nil)],
            runID: "fourth",
            to: first,
            path: "s.csv"
        )
        #expect(
            throws: ScenarioError.mixedSettings(
                path: "s.csv",
                groups: 2,
                differing: ["bandwidth_bytes_per_second: 10485760 / (none)"]
            )
        ) {
            try ListScrollCSV.singleGroup(unthrottled, path: "s.csv")
        }
    }

    /// Strategy, renderer and cap are what one chart compares: invocations that differ only there share a group.
    @Test func invocationsOfTheSameSettingsShareAGroup() throws {
        let first = try ListScrollCSV.appending([Self.result(.data, cap: 1)], runID: "first", to: "", path: "s.csv")
        let both = try ListScrollCSV.appending(
            [Self.result(.download, cap: 16)],
            runID: "second",
            to: first,
            path: "s.csv"
        )
        let group = try #require(try ListScrollCSV.singleGroup(both, path: "s.csv"))
        #expect(group.rows.count == 2)
        #expect(group.runIDs == ["first", "second"])
    }

    /// Files written before format 1 (without the settings columns and run_id, or without floor_bytes)
    /// are refused as an older format, naming the command that measures them again; they were read,
    /// their settings "not recorded", before format 2.
    @Test(arguments: [
        ["max_image_pixels", "bandwidth_bytes_per_second", "sizes", "run_id", "floor_bytes"], ["floor_bytes"],
    ])
    func filesOlderThanThePreviousFormatAreRefusedNamingTheCommand(dropped: [String]) throws {
        let table = try CSV.parse(
            try ListScrollCSV.appending([Self.result(cap: 1), Self.result(cap: 4)], runID: "r", to: "", path: "s.csv")
        )
        let kept = table[0].indices.filter { !dropped.contains(table[0][$0]) }
        let old = table.filter { $0 != [""] }.map { row in CSV.line(kept.map { row[$0] }) + "\n" }.joined()
        #expect(throws: ScenarioError.olderFormat(path: "old.csv")) {
            try ListScrollCSV.singleGroup(old, path: "old.csv")
        }
        #expect(
            ScenarioError.olderFormat(path: "old.csv").description.contains(
                "measure it again (bench scenario list-scroll --out DIR)"
            )
        )
    }
}
