import BenchCore
import Foundation
import ReferenceDocuments
import Report
import Testing

/// results/REPORT.md against the committed results/trials.csv: the medians it shows are
/// recomputed here from the CSV, and regenerating it from the CSVs changes nothing.
@Suite struct CommittedReportTests {
    static let results = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("results")

    static func read(_ name: String) throws -> String {
        try String(contentsOf: results.appendingPathComponent(name), encoding: .utf8)
    }

    static func mb(_ bytes: Double) -> String { String(format: "%.1f", bytes / 1e6) }

    /// The leading number of a cell such as "26.3 (26.1–26.5)".
    static func median(in cell: String) -> String {
        String(cell.prefix { $0 != " " })
    }

    @Test func articleTableShowsTheMediansOfTrialsCSV() throws {
        let summaries = CellSummary.summarize(try TrialsCSV.parse(Self.read("trials.csv")))
        let table = try #require(GeneratedSections.block("article", in: try Self.read("REPORT.md")))
        let rows = MarkdownTable.parse(table)
        let header = try #require(rows.first)
        var compared = 0
        for summary in summaries {
            guard let article = ArticleCase.all.first(where: { $0.cell(summary.cell.allocator) == summary.cell }) else {
                continue
            }
            let row = try #require(rows.first { $0.first == article.title }, "no row for \(article.title)")
            let column = try #require(header.firstIndex(of: "\(summary.cell.allocator.title): peak RSS"))
            let expected = try #require(summary.peakRSSDelta)
            #expect(Self.median(in: row[column]) == Self.mb(expected.median), "\(summary.cell)")
            #expect(row[column].contains("(\(Self.mb(expected.min))–\(Self.mb(expected.max)))"), "\(summary.cell)")
            compared += 1
        }
        #expect(compared >= 4, "the article's four cases are in trials.csv")
    }

    @Test func matrixTableShowsEveryCellOfTrialsCSV() throws {
        let summaries = CellSummary.summarize(try TrialsCSV.parse(Self.read("trials.csv")))
        let rows = MarkdownTable.parse(try #require(GeneratedSections.block("matrix", in: try Self.read("REPORT.md"))))
        let header = try #require(rows.first)
        let median = try #require(header.firstIndex(of: "median"))
        for summary in summaries {
            guard let expected = summary.peakRSSDelta else { continue }
            let row = try #require(
                rows.first { $0[0] == summary.cell.caseTitle && $0[1] == summary.cell.allocator.title },
                "no row for \(summary.cell)"
            )
            #expect(row[median] == Self.mb(expected.median), "\(summary.cell)")
        }
        #expect(rows.count - 1 == summaries.filter { $0.peakRSSDelta != nil }.count)
    }

    @Test func regeneratingTheReportFromTheCSVsChangesNothing() throws {
        let report = try Self.read("REPORT.md")
        let figures = try ResultsReport(directory: Self.results).load()
        let regenerated = try GeneratedSections.apply(to: report, blocks: figures.blocks(), values: figures.values())
        #expect(regenerated == report, "REPORT.md is stale: run `make plots`")
    }
}
