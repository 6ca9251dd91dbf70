import BenchCore
import Foundation
import ReferenceDocuments
import Report
import Scenarios
import Testing

/// results/SCENARIO.md's tables and figures are generated from the committed scenario CSVs
/// (`bench report --results results`, which `bench-reference measure scenario` and `make reference` run):
/// list-scroll.csv and list-scroll-memory-limit.csv, list-scroll-faults.csv, list-scroll-speed.csv.
@Suite struct CommittedScenarioTests {
    static let results = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("results")

    static func committedDocument() throws -> String {
        try String(contentsOf: Self.results.appendingPathComponent("SCENARIO.md"), encoding: .utf8)
    }

    @Test func regeneratingTheDocumentFromTheCommittedCSVsChangesNothing() throws {
        let document = try Self.committedDocument()
        let figures = try ScenarioDocument(folder: Self.results)
        let regenerated = try GeneratedSections.apply(to: document, blocks: figures.blocks, values: figures.values)
        #expect(regenerated == document, "SCENARIO.md is stale: run bench report --results results")
    }

    /// Every table the generator makes is in the document, and every family of values is quoted
    /// at least once: a figure computed and shown nowhere is a figure typed by hand somewhere.
    @Test func everyGeneratedTableAndValueFamilyIsInTheDocument() throws {
        let document = try Self.committedDocument()
        let figures = try ScenarioDocument(folder: Self.results)
        #expect(figures.blocks.count == 6, "the peaks, times, requests, memory budgets, faults and speeds")
        let missingTables = figures.blocks.keys.filter { !document.contains("<!-- table:\($0) -->") }.sorted()
        #expect(missingTables.isEmpty, "tables SCENARIO.md does not show: \(missingTables.joined(separator: ", "))")
        let quoted = Set(UsedValues.names(in: document).map(Self.family))
        let unquoted = Set(figures.values.keys.map(Self.family)).subtracting(quoted).sorted()
        #expect(unquoted.isEmpty, "value families SCENARIO.md quotes nowhere: \(unquoted.joined(separator: ", "))")
    }

    /// A value's family: its cell (strategy, renderer, cap, memory limit, fault, speed) replaced by placeholders.
    static func family(_ name: String) -> String {
        var text = name
        for (pattern, template) in [
            (#"_(data|download)(?=_)"#, "_S"), (#"_(full|thumbnail)(?=_)"#, "_R"), (#"_cap\d+_"#, "_capN_"),
            (#"^scenario_mem(\d+|none)_"#, "scenario_memN_"), (#"^scenario_speed\d+_"#, "scenario_speedN_"),
            (#"^scenario_fault_[a-z0-9_]+?_retries\d+_"#, "scenario_fault_F_retriesN_"),
        ] {
            let regex = try! NSRegularExpression(pattern: pattern)
            text = regex.stringByReplacingMatches(
                in: text,
                range: NSRange(text.startIndex..., in: text),
                withTemplate: template
            )
        }
        return text
    }

    @Test func aFamilyIsACellsValuesUnderAnyCell() {
        #expect(Self.family("scenario_download_thumbnail_cap16_tti_median_ms") == "scenario_S_R_capN_tti_median_ms")
        #expect(Self.family("scenario_saving_full_cap4_mb") == "scenario_saving_R_capN_mb")
        #expect(Self.family("scenario_mem100_data_full_status") == "scenario_memN_S_R_status")
        #expect(Self.family("scenario_fault_status_503_retries2_sent_mb") == "scenario_fault_F_retriesN_sent_mb")
        #expect(Self.family("scenario_speed40_download_wasted_mb") == "scenario_speedN_S_wasted_mb")
        #expect(Self.family("scenario_payload_all_rows_mb") == "scenario_payload_all_rows_mb")
        #expect(Self.family("scenario_speed_most_wasted_rps") == "scenario_speed_most_wasted_rps")
    }

    /// The committed files (bench-reference measure scenario, converted to format 2 by their rename) record
    /// every setting and their run ids under the current names, and results/ records the current format; the
    /// caps are one setting (their chart draws it whole), the others one group per value they sweep.
    @Test func theCommittedFilesRecordTheirSettingsAndRunIDs() throws {
        func groups(_ name: String) throws -> [ListScrollCSV.Group] {
            let url = Self.results.appendingPathComponent(name)
            return try ListScrollCSV.groups(try String(contentsOf: url, encoding: .utf8), path: url.path)
        }
        #expect(try RunSettings.read(from: Self.results)?.format == ResultsFormat.current)
        for name in ScenarioDocument.files {
            #expect(ListScrollCSV.url(of: name, in: Self.results)?.lastPathComponent == name, "\(name)")
        }
        let caps = try groups("list-scroll.csv")
        #expect(caps.count == 1, "one setting: its chart draws it whole")
        let main = try #require(caps.first)
        let settings = Dictionary(uniqueKeysWithValues: main.settings.map { ($0.column, $0.value) })
        #expect(settings["bandwidth_bytes_per_second"] == "10000000", "--bandwidth 10M")
        #expect(settings["sizes"]?.split(separator: " ").count == 8)
        #expect(settings["rows"] == "60" && settings["rows_per_second"] == "20.0")
        #expect(main.runIDs.count == 1)
        #expect(
            try groups("list-scroll-speed.csv").map { $0.rows[0]["rows_per_second"] } == [
                "5.0", "10.0", "20.0", "40.0",
            ]
        )
        #expect(
            try groups("list-scroll-memory-limit.csv").map { $0.rows[0]["memory_limit_bytes"] } == [
                "104857600", "209715200", "419430400",
            ]
        )
        #expect(try groups("list-scroll-faults.csv").count == 8, "no fault and 3 faults, each without and with retries")
        for name in ["list-scroll-speed.csv", "list-scroll-memory-limit.csv", "list-scroll-faults.csv"] {
            #expect(
                try groups(name).allSatisfy { !$0.runIDs.isEmpty },
                "\(name)"
            )
        }
    }
}

/// The `<!-- value:NAME -->` markers of a document.
enum UsedValues {
    static func names(in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"<!-- value:([^ ]+) -->"#)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
    }
}
