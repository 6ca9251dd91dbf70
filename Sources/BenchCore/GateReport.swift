import Foundation

/// The gate's table: every cell and metric with baseline, current, change and verdict,
/// as plain text for a terminal or as Markdown for a pull-request comment.
package enum GateReport {
    package enum Format: String, CaseIterable, Sendable {
        case text, markdown
    }

    static let header = ["cell", "metric", "runs", "baseline", "current", "change", "allowed", "p", "verdict"]

    /// `verbose`: every warning on its own line; otherwise one line per kind of warning, with the
    /// cells counted (a kind with a single warning is that warning).
    package static func render(_ gate: GateComparison, format: Format, verbose: Bool = false) -> String {
        let rows = gate.comparisons.map(row)
        let title =
            "Medians in MB (10^6 bytes) over the warmed-up baseline; allowed = max(absolute, "
            + "relative x baseline); p = one-sided Mann-Whitney U, current > baseline; a regression needs "
            + "change > allowed and p < \(gate.thresholds.significanceLevel)."
        var text: String
        switch format {
        case .text:
            text = "Memory gate. " + title + "\n" + TextTable.render(header: header, rows: rows)
        case .markdown:
            text =
                "### Memory gate\n\n" + title + "\n\n"
                + markdownTable(
                    rows: rows.map { row in
                        row.enumerated().map { $0.offset == 8 && $0.element != "ok" ? "**\($0.element)**" : $0.element }
                    }
                )
        }
        text += "\n" + summary(gate)
        text += whatGrew(gate, format: format)
        text += whatGrewInRSS(gate, format: format)
        text += aboveTheFloor(gate, format: format)
        let bullet = format == .markdown ? "- " : "warning: "
        let warnings = verbose ? gate.warnings : groupedWarnings(gate)
        if !warnings.isEmpty {
            text += "\n" + warnings.map { bullet + $0 }.joined(separator: "\n") + "\n"
        }
        return text
    }

    /// One line per kind of warning, with the cells counted; a kind with a single warning is that warning.
    static func groupedWarnings(_ gate: GateComparison) -> [String] {
        GateWarning.Kind.allCases.compactMap { kind in
            let mine = gate.cellWarnings.filter { $0.kind == kind }
            guard mine.count > 1 else { return mine.first?.text }
            let cells = Set(mine.map(\.cell)).count
            let counted = cells == 1 ? "1 cell has" : "\(cells) cells have"
            let list = "(--verbose lists all \(mine.count))"
            switch kind {
            case .failedRuns:
                return "\(counted) runs that failed in CURRENT; the table's runs column counts them \(list)"
            case .tooFewRuns:
                return "\(counted) too few runs for the significance test at \(gate.thresholds.significanceLevel): "
                    + "there the threshold alone decides; use more runs \(list)"
            case .unstable:
                return String(
                    format: "%@ unstable (CV above %.0f%% in BASELINE or CURRENT): use more runs (--runs 10) "
                        + "or pin the benchmark to a quiet core (taskset -c 1) %@",
                    cells == 1 ? "1 cell is" : "\(cells) cells are",
                    gate.thresholds.cvWarningPercent,
                    list
                )
            }
        }
    }

    static func row(_ comparison: MetricComparison) -> [String] {
        let runs =
            "\(comparison.baseline?.count ?? 0)/\(comparison.current?.count ?? 0)"
            + (comparison.failedRuns > 0 ? " (+\(comparison.failedRuns) failed)" : "")
        var change = "-"
        if let delta = comparison.change, let baseline = comparison.baseline?.median {
            change = signedMB(delta)
            if baseline != 0 { change += String(format: " (%+.1f%%)", delta / abs(baseline) * 100) }
        }
        return [
            comparison.cell.description, comparison.metric.label, runs,
            mb(comparison.baseline?.median), mb(comparison.current?.median), change,
            comparison.allowed.map { "±" + mb($0) } ?? "-",
            comparison.pGreater.map { pValue($0) } ?? "-",
            comparison.verdict == .regression ? "REGRESSION" : comparison.verdict.rawValue,
        ]
    }

    static func summary(_ gate: GateComparison) -> String {
        let cells = gate.cellVerdicts
        let counts = Dictionary(grouping: cells, by: \.verdict).mapValues(\.count)
        let parts = GateVerdict.order.reversed().compactMap { verdict in
            counts[verdict].map { "\($0) \(verdict.rawValue)" }
        }
        var line = "\(cells.count) cells: " + parts.joined(separator: ", ")
        let regressed = cells.filter { $0.verdict == .regression }.map(\.cell.description)
        if !regressed.isEmpty { line += "\nregressed: " + regressed.joined(separator: ", ") }
        switch gate.exitCode {
        case .success: line += "\nverdict: PASS"
        case .regression: line += "\nverdict: FAIL (regression, exit 2)"
        case .runFailed: line += "\nverdict: FAIL (runs failed or cells missing in CURRENT, exit 3)"
        case .noBaseline: line += "\nverdict: FAIL (no baseline for some cells, exit 5)"
        default: break
        }
        return line + "\n"
    }

    /// Under the verdict, each grown cell's holders that changed most (median runs, exact heap peak).
    static func whatGrew(_ gate: GateComparison, format: Format) -> String {
        guard !gate.holderDiffs.isEmpty else { return "" }
        var text =
            "\n" + (format == .markdown ? "**What grew**" : "What grew")
            + " (the holders of each side's median run at its exact peak):\n"
        for cell in gate.holderDiffs.keys.sorted() {
            let bullet = format == .markdown ? "- " : "  "
            switch gate.holderDiffs[cell]! {
            case .unnamed(let side):
                text += "\(bullet)\(cell): not named, \(side) has no holders (measured without them)\n"
            case .changes(let changes) where changes.isEmpty:
                text += "\(bullet)\(cell): no holder changed by 0.05 MB or more\n"
            case .changes(let changes):
                let named = changes.map { change in
                    let name = format == .markdown ? "`\(change.allocatedBy)`" : change.allocatedBy
                    return signedMB(Double(change.bytes)) + " MB " + name
                        + (change.module.isEmpty ? "" : " [\(change.module)]")
                }
                text += "\(bullet)\(cell): " + named.joined(separator: "; ") + "\n"
            }
        }
        return text
    }

    /// Under the holders, each grown cell's residency categories that changed most at the RSS peak.
    static func whatGrewInRSS(_ gate: GateComparison, format: Format) -> String {
        let cells = gate.residencyDiffs.keys.sorted()
        guard !cells.isEmpty else { return "" }
        var text =
            "\n" + (format == .markdown ? "**What grew in RSS**" : "What grew in RSS")
            + " (residency.csv's categories at each side's median run's RSS peak):\n"
        let bullet = format == .markdown ? "- " : "  "
        for cell in cells {
            switch gate.residencyDiffs[cell]! {
            case .unmeasured(let side):
                text += "\(bullet)\(cell): not named, \(side) has no residency (measured without it)\n"
            case .changes(let changes) where changes.isEmpty:
                text += "\(bullet)\(cell): no category changed by 0.05 MB or more\n"
            case .changes(let changes):
                let named = changes.map { signedMB(Double($0.bytes)) + " MB " + $0.category.rawValue }
                text += "\(bullet)\(cell): " + named.joined(separator: "; ") + "\n"
            }
        }
        return text
    }

    /// Each cell's exact heap peak over its floor on both sides, and the roles whose excess changed.
    static func aboveTheFloor(_ gate: GateComparison, format: Format) -> String {
        guard !gate.floorExcesses.isEmpty else { return "" }
        var text =
            "\n" + (format == .markdown ? "**Above the floor**" : "Above the floor")
            + " (exact heap peak less the cell's floor, each side's median run; the roles whose excess changed):\n"
        let bullet = format == .markdown ? "- " : "  "
        for cell in gate.floorExcesses.keys.sorted() {
            let pair = gate.floorExcesses[cell]!
            func side(_ excess: FloorExcess?) -> String { excess.map { mb(Double($0.heapBytes)) } ?? "-" }
            var line =
                "\(bullet)\(cell): BASELINE \(side(pair.baseline)), CURRENT \(side(pair.current))"
                + " MB over the floor"
            if let floor = pair.current?.floorBytes ?? pair.baseline?.floorBytes {
                line += " of \(mb(Double(floor))) MB"
            }
            let changes = pair.roleChanges.map { change in
                signedMB(Double(change.bytes)) + " MB " + change.role.rawValue
                    + (change.largestHolder.isEmpty ? "" : " (\(change.largestHolder))")
            }
            if !changes.isEmpty { line += ": " + changes.joined(separator: "; ") }
            text += line + "\n"
        }
        return text
    }

    static func markdownTable(rows: [[String]]) -> String {
        let lines = [header, header.map { _ in "---" }] + rows
        return lines.map {
            "| " + $0.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        .joined(separator: "\n") + "\n"
    }

    static func mb(_ bytes: Double?) -> String {
        bytes.map { String(format: "%.2f", $0 / 1e6) } ?? "-"
    }

    static func signedMB(_ bytes: Double) -> String {
        String(format: "%+.2f", bytes / 1e6)
    }

    package static func pValue(_ p: Double) -> String {
        // Four significant digits: 15/3003 = 0.004995 must not print as 0.005 next to "needs p < 0.005".
        String(format: "%.4g", p)
    }
}
