import BenchCore
import Foundation
import Report

/// REPORT.md's "The settle": the settle rule (`SettleRule.standard`), the evidence that it ends only
/// once RSS and the heap are flat (results/overhead/settle.csv: every trial of full-matrix runs with
/// the settle as a fixed 50 ms pause, the rule replayed on its samples), and where a trial's wall time
/// goes with the fixed pause and with the rule (phases.csv, timings.csv). From scripts/overhead.sh.
package struct OverheadFigures: Sendable {
    package var phases: CSVRows?
    package var settle: CSVRows?
    package var timings: CSVRows?
    /// `bench compare` of the serial fixed-pause run against the rule's runs, by --jobs (compare-fixed-rule-j<N>.md).
    package var comparisons: [Int: String] = [:]

    package static let folderName = "overhead"
    /// The settle's two ways in the data: a fixed 50 ms pause, and the rule.
    static let labels = [("fixed", "fixed 50 ms pause"), ("rule", "settle rule")]

    package init(phases: CSVRows?, settle: CSVRows?, timings: CSVRows?) {
        self.phases = phases
        self.settle = settle
        self.timings = timings
    }

    package static func load(from results: URL) throws -> OverheadFigures {
        let folder = results.appendingPathComponent(folderName)
        var figures = OverheadFigures(
            phases: try CSVRows.load(folder.appendingPathComponent("phases.csv")),
            settle: try CSVRows.load(folder.appendingPathComponent("settle.csv")),
            timings: try CSVRows.load(folder.appendingPathComponent("timings.csv"))
        )
        for jobs in [1, 2] {
            figures.comparisons[jobs] = try? String(
                contentsOf: folder.appendingPathComponent("compare-fixed-rule-j\(jobs).md"),
                encoding: .utf8
            )
        }
        return figures
    }

    static func numbers(_ rows: [[String: String]], _ column: String) -> [Double] {
        rows.compactMap { $0[column].flatMap(Double.init) }
    }

    static func ms(_ value: Double) -> String { String(format: "%.1f", value) }

    /// The phases of the trials of one settle and one --jobs.
    func phaseRows(_ label: String, jobs: Int) -> [[String: String]] {
        (phases?.rows ?? []).filter { $0["settle"] == label && $0["jobs"] == String(jobs) }
    }

    package func values() -> [String: String] {
        var values: [String: String] = [:]
        let rule = SettleRule.standard
        values["settle_quiet_ms"] = String(rule.quietNanos / 1_000_000)
        values["settle_max_ms"] = String(rule.maximumNanos / 1_000_000)
        values["settle_quiet_turns"] = String(rule.quietTurns)
        values["settle_rss_tolerance_kib"] = String(rule.residentToleranceBytes / 1024)
        values["settle_heap_tolerance_kib"] = String(rule.heapToleranceBytes / 1024)
        // Not the settle's, but a constant of the child's measurement too: the residency snapshots' step.
        values["residency_snapshot_step_kib"] = String(ResidencySnapshotRule.minimumStepBytes / 1024)
        let settleRows = settle?.rows ?? []
        if !settleRows.isEmpty {
            values["settle_evidence_trials"] = String(settleRows.count)
            let movements = Self.numbers(settleRows, "last_movement_ms")
            if let last = movements.max() { values["settle_last_movement_max_ms"] = Self.ms(last) }
            values["settle_moved_trials"] = String(movements.filter { $0 > 0 }.count)
            let replayed = settleRows.filter { !($0["rule_end_ms"] ?? "").isEmpty }
            values["settle_replay_unmet"] = String(settleRows.count - replayed.count)
            if let end = Distribution(Self.numbers(replayed, "rule_end_ms")) {
                values["settle_replay_end_median_ms"] = Self.ms(end.median)
                values["settle_replay_end_max_ms"] = Self.ms(end.max)
            }
            if let rss = Self.numbers(replayed, "rule_rss_diff_bytes").max() {
                values["settle_replay_rss_diff_max_kib"] = String(format: "%.0f", rss / 1024)
            }
            if let heap = Self.numbers(replayed, "rule_heap_diff_bytes").max() {
                values["settle_replay_heap_diff_max_bytes"] = String(format: "%.0f", heap)
            }
        }
        for (label, _) in Self.labels {
            for jobs in [1, 2] {
                let rows = phaseRows(label, jobs: jobs)
                if let overhead = Distribution(Self.numbers(rows, "overhead_ms")) {
                    values["overhead_\(label)_j\(jobs)_median_ms"] = String(format: "%.0f", overhead.median)
                }
                let walls = Self.numbers(
                    (timings?.rows ?? []).filter { $0["settle"] == label && $0["jobs"] == String(jobs) },
                    "wall_s"
                )
                if let wall = Distribution(walls) {
                    values["overhead_matrix_\(label)_j\(jobs)_s"] = String(format: "%.0f", wall.median)
                }
            }
        }
        return values
    }

    package func blocks() -> [String: String] {
        [
            "overhead-phases": phasesTable(), "overhead-timings": timingsTable(), "settle-evidence": evidenceTable(),
            "settle-finals": finalsTable(),
            "overhead-compare": compareLines(),
        ]
    }

    static let missing = "No overhead runs: `bench-reference measure overhead` measures them (results/overhead/).\n"

    /// Median milliseconds of each part of a trial's wall time, the fixed pause against the rule,
    /// serial and with --jobs 2.
    func phasesTable() -> String {
        let parts = [
            ("startup_ms", "start-up: spawn to the trial's first line"), ("warmup_ms", "warm-up, window opened"),
            ("window_ms", "measured window: fetch and render"), ("settle_ms", "settle"),
            ("tail_ms", "readings, report, exit and reap"), ("wall_ms", "wall"),
            ("overhead_ms", "overhead: wall minus window"),
        ]
        var header = ["part of a trial (median ms)"]
        var columns: [[[String: String]]] = []
        for jobs in [1, 2] {
            for (label, title) in Self.labels where !phaseRows(label, jobs: jobs).isEmpty {
                header.append("\(title), --jobs \(jobs)")
                columns.append(phaseRows(label, jobs: jobs))
            }
        }
        guard !columns.isEmpty else { return Self.missing }
        let rows =
            parts.map { column, title in
                [title]
                    + columns.map { rows in Distribution(Self.numbers(rows, column)).map { Self.ms($0.median) } ?? "–" }
            } + [["trials"] + columns.map { String($0.count) }]
        return MarkdownTable.render(header: header, rows: rows, leftAligned: 1)
    }

    /// Wall time of the whole matrix, by settle and --jobs, with the load averages it ran under.
    func timingsTable() -> String {
        let rows = timings?.rows ?? []
        guard !rows.isEmpty else { return Self.missing }
        var table: [[String]] = []
        for jobs in [1, 2] {
            for (label, title) in Self.labels {
                let runs = rows.filter { $0["settle"] == label && $0["jobs"] == String(jobs) }
                guard let wall = Distribution(Self.numbers(runs, "wall_s")) else { continue }
                let loads = Self.numbers(runs, "load_start") + Self.numbers(runs, "load_end")
                table.append([
                    title, String(jobs), String(format: "%.0f", wall.median),
                    String(format: "%.0f–%.0f", wall.min, wall.max), String(runs.count),
                    String(format: "%.1f–%.1f", loads.min() ?? 0, loads.max() ?? 0),
                ])
            }
        }
        return MarkdownTable.render(
            header: ["settle", "--jobs", "matrix wall time (s, median)", "range (s)", "repeats", "load average"],
            rows: table,
            leftAligned: 1
        )
    }

    /// The fixed-pause trials by --jobs: when RSS and the heap last moved after the render, and what
    /// the rule, replayed on the same samples, would have ended and read.
    func evidenceTable() -> String {
        let rows = settle?.rows ?? []
        guard !rows.isEmpty else { return Self.missing }
        var table: [[String]] = []
        for jobs in ["1", "2"] {
            let group = rows.filter { $0["jobs"] == jobs }
            guard let movement = Distribution(Self.numbers(group, "last_movement_ms")) else { continue }
            let replayed = group.filter { !($0["rule_end_ms"] ?? "").isEmpty }
            let end = Distribution(Self.numbers(replayed, "rule_end_ms"))
            table.append([
                jobs, String(group.count),
                String(group.filter { (Double($0["last_movement_ms"] ?? "") ?? 0) > 0 }.count),
                Self.ms(movement.max), end.map { Self.ms($0.median) } ?? "–", end.map { Self.ms($0.max) } ?? "–",
                String(group.count - replayed.count),
                String(format: "%.0f", (Self.numbers(replayed, "rule_rss_diff_bytes").max() ?? 0) / 1024),
                String(format: "%.0f", Self.numbers(replayed, "rule_heap_diff_bytes").max() ?? 0),
            ])
        }
        return MarkdownTable.render(
            header: [
                "--jobs", "trials", "moved after the render", "last movement (ms, max)",
                "rule's end (ms, median)", "rule's end (ms, max)", "rule not met in 50 ms",
                "RSS at the rule's end vs 50 ms (KiB, max)", "heap at the rule's end vs 50 ms (bytes, max)",
            ],
            rows: table,
            leftAligned: 0
        )
    }

    /// The verdict line of each comparison: the fixed pause's serial run as the baseline, the rule's as the current run.
    func compareLines() -> String {
        let lines = comparisons.keys.sorted().compactMap { jobs -> String? in
            guard let verdict = comparisons[jobs]?.split(separator: "\n").last(where: { $0.contains("verdict:") })
            else { return nil }
            return
                "- the rule's run with --jobs \(jobs) (every row: [overhead/compare-fixed-rule-j\(jobs).md](overhead/compare-fixed-rule-j\(jobs).md)): \(verdict)"
        }
        return lines.isEmpty ? Self.missing : lines.joined(separator: "\n") + "\n"
    }

    /// The figures the settle decides, final RSS and final heap over the baseline: for each --jobs, the
    /// cell whose median moved most between the fixed pause's runs and the rule's (`bench compare`
    /// checks the peaks, not these).
    func finalsTable() -> String {
        let rows = phases?.rows ?? []
        guard !rows.isEmpty else { return Self.missing }
        func cell(_ row: [String: String]) -> String {
            "\(row["strategy"] ?? "")+\(row["render"] ?? "") [\(row["allocator"] ?? "")]"
        }
        var table: [[String]] = []
        for jobs in ["1", "2"] {
            for (column, title) in [("final_rss_delta_bytes", "final RSS"), ("final_heap_delta_bytes", "final heap")] {
                var worst: (cell: String, fixed: Double, rule: Double)?
                var cells = 0
                for name in Set(rows.map(cell)).sorted() {
                    let group = rows.filter { cell($0) == name && $0["jobs"] == jobs }
                    guard
                        let fixed = Distribution(Self.numbers(group.filter { $0["settle"] == "fixed" }, column))?
                            .median,
                        let rule = Distribution(Self.numbers(group.filter { $0["settle"] == "rule" }, column))?.median
                    else { continue }
                    cells += 1
                    if worst == nil || abs(rule - fixed) > abs(worst!.rule - worst!.fixed) {
                        worst = (name, fixed, rule)
                    }
                }
                guard let worst else { continue }
                table.append([
                    jobs, title, String(cells), worst.cell, String(format: "%.2f", worst.fixed / 1e6),
                    String(format: "%.2f", worst.rule / 1e6), String(format: "%+.2f", (worst.rule - worst.fixed) / 1e6),
                ])
            }
        }
        guard !table.isEmpty else { return Self.missing }
        return MarkdownTable.render(
            header: [
                "--jobs", "figure", "cells", "cell that moved most", "fixed pause (MB, median)",
                "settle rule (MB, median)", "change (MB)",
            ],
            rows: table,
            leftAligned: 4
        )
    }
}
