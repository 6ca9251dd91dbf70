import BenchCore
import Foundation
import Testing

/// `bench compare` says each kind of warning once, with the cells counted; `--verbose` lists each.
/// Under a full matrix's table the warnings stay a few lines: one per kind, however many cells it counts.
@Suite struct GateWarningsTests {
    let rows = GateComparisonTests()

    /// Four cells of two runs a side: too few for the test at 0.05 (the smallest p is 1/6), each warned about.
    var fourThinCells: GateComparison {
        let strategies = ["data", "download", "async-data", "curl-memory"]
        return rows.compare(
            strategies.flatMap { rows.runs([100_000_000, 100_100_000], strategy: $0) },
            strategies.flatMap { rows.runs([100_050_000, 100_120_000], strategy: $0) }
        )
    }

    static func warningLines(_ text: String, prefix: String = "warning: ") -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }

    @Test func oneLinePerKindWithTheCellsCounted() {
        let gate = fourThinCells
        #expect(gate.cellWarnings.count == 4)
        let lines = Self.warningLines(GateReport.render(gate, format: .text))
        #expect(lines.count == 1, "\(lines)")
        #expect(
            lines.first?.contains("4 cells have too few runs for the significance test at 0.05") == true,
            "\(lines)"
        )
        #expect(lines.first?.contains("--verbose lists all 4") == true, "\(lines)")
        let markdown = Self.warningLines(GateReport.render(gate, format: .markdown), prefix: "- ")
        #expect(markdown.count == 1, "\(markdown)")
    }

    @Test func verboseListsEveryWarningAndTheVerdictStaysTheSame() {
        let gate = fourThinCells
        let verbose = GateReport.render(gate, format: .text, verbose: true)
        let lines = Self.warningLines(verbose)
        #expect(lines.count == 4, "\(lines)")
        for strategy in ["data", "download", "async-data", "curl-memory"] {
            #expect(
                lines.contains {
                    $0.contains("\(strategy)+full [system]") && $0.contains("too few for the significance test")
                },
                "\(strategy)"
            )
        }
        // Only the warnings differ: the table and the verdict are the same text.
        let grouped = GateReport.render(gate, format: .text)
        #expect(grouped.components(separatedBy: "\nwarning: ")[0] == verbose.components(separatedBy: "\nwarning: ")[0])
        #expect(grouped.contains("verdict: PASS"))
    }

    /// A kind with one warning is that warning, whole: no count of one.
    @Test func aSingleWarningOfAKindIsPrintedWhole() {
        let gate = rows.compare(rows.runs([100_000_000, 100_100_000]), rows.runs([100_050_000, 100_120_000]))
        let lines = Self.warningLines(GateReport.render(gate, format: .text))
        #expect(lines == gate.warnings.map { "warning: " + $0 }, "\(lines)")
        #expect(lines.count == 1)
    }

    /// Unstable cells and failed runs are kinds of their own: three kinds, three lines.
    @Test func eachKindHasItsOwnLine() {
        let noisy = [60_000_000, 100_000_000, 140_000_000, 80_000_000, 120_000_000]
        let thin = ["data", "download", "async-data", "curl-memory"]
        let baseline =
            thin.flatMap { rows.runs([100_000_000, 100_100_000], strategy: $0) }
            + rows.runs(noisy, strategy: "a") + rows.runs(noisy, strategy: "b")
            + rows.runs(rows.around100MB(), strategy: "c") + rows.runs(rows.around100MB(), strategy: "d")
        let current =
            thin.flatMap { rows.runs([100_050_000, 100_120_000], strategy: $0) }
            + rows.runs(noisy, strategy: "a") + rows.runs(noisy, strategy: "b")
            + rows.runs(rows.around100MB(count: 4), strategy: "c") + rows.runs([0], strategy: "c", status: .timeout)
            + rows.runs(rows.around100MB(count: 4), strategy: "d") + rows.runs([0], strategy: "d", status: .crashed)
        let gate = rows.compare(baseline, current)
        let lines = Self.warningLines(GateReport.render(gate, format: .text))
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.contains { $0.contains("2 cells have runs that failed in CURRENT") }, "\(lines)")
        #expect(lines.contains { $0.contains("2 cells are unstable") }, "\(lines)")
        #expect(lines.contains { $0.contains("4 cells have too few runs") }, "\(lines)")
        #expect(gate.exitCode == .runFailed)
    }
}
