import BenchCore
import Foundation
import Report

/// residency-cost.csv (scripts/residency-cost.py): the same cells measured with the residency
/// snapshots on and off (`--residency off`), in rounds. A round's run of a cell with them and
/// its run without (same round, same run number) are a pair, measured minutes apart from the other
/// pairs: what the snapshots add is the median of the pairs' differences, of the measured window and
/// of the trial's wall time, so that the machine's drift over the study cancels. The runs with
/// snapshots also say how long their snapshots took.
package struct ResidencyCost: Sendable, Equatable {
    package struct Run: Sendable, Equatable {
        package var workload: String
        package var snapshotsOn: Bool
        /// The round and the run number in it: the pair a run belongs to.
        package var round: Int
        package var run: Int
        package var cell: TrialCell
        package var windowMs: Double
        package var wallMs: Double
        /// The snapshots' time (all threads, wall) and its part on the measured threads inside the
        /// window; nil with the snapshots off.
        package var snapshotMs: Double?
        package var inWindowMs: Double?
    }

    /// The successful runs.
    package var runs: [Run]
    package static let fileName = "residency-cost.csv"
    /// The targets: at most this much added to a trial's wall time, and at most this share
    /// of the measured window.
    package static let targetMs = 5.0
    package static let windowShareTarget = 0.02
    /// scripts/residency-cost.py's workloads.
    static let articleWorkload = "article"
    static let heicWorkload = "heic"
    static let header = [
        "workload", "residency", "round", "strategy", "render", "allocator", "run", "status", "window_ms", "wall_ms",
        "snapshots", "snapshot_ms", "in_window_ms",
    ]

    package static func parse(_ text: String) throws -> ResidencyCost {
        var runs: [Run] = []
        for (line, fields) in try CSV.rows(of: text, header: header, fileName: fileName) {
            guard fields.count == header.count else { throw CSVError("\(line): expected \(header.count) fields") }
            guard fields[1] == "on" || fields[1] == "off", let round = Int(fields[2]), let run = Int(fields[6]),
                let render = RenderMode(name: fields[4]), let allocator = Allocator(rawValue: fields[5])
            else {
                throw CSVError(
                    "\(line): residency must be on or off, with a round, a run and a known render and allocator"
                )
            }
            guard fields[7] == TrialStatus.ok.rawValue else { continue }
            guard let window = Double(fields[8]), let wall = Double(fields[9]), window > 0, wall.isFinite,
                wall >= window
            else {
                throw CSVError("\(line): an ok run needs a positive, finite window_ms and a wall_ms no shorter")
            }
            let on = fields[1] == "on"
            let snapshot = Double(fields[11]).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            let inWindow = Double(fields[12]).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            guard on == (snapshot != nil && inWindow != nil), fields[11].isEmpty == (snapshot == nil),
                fields[12].isEmpty == (inWindow == nil)
            else {
                throw CSVError(
                    "\(line): snapshot_ms and in_window_ms (finite, not negative) are given exactly when residency is on"
                )
            }
            runs.append(
                Run(
                    workload: fields[0],
                    snapshotsOn: on,
                    round: round,
                    run: run,
                    cell: TrialCell(strategy: fields[3], render: render, allocator: allocator),
                    windowMs: window,
                    wallMs: wall,
                    snapshotMs: snapshot,
                    inWindowMs: inWindow
                )
            )
        }
        guard !runs.isEmpty else { throw CSVError("\(fileName) has no successful runs") }
        return ResidencyCost(runs: runs)
    }

    /// One cell of one workload: its pairs (a run without a pair counts for nothing here).
    struct Comparison {
        var workload: String
        var cell: TrialCell
        var pairs: [(on: Run, off: Run)]

        var on: [Run] { pairs.map(\.on) }
        var off: [Run] { pairs.map(\.off) }

        func median(_ runs: [Run], _ value: (Run) -> Double) -> Double { Distribution(runs.map(value))?.median ?? .nan }
        /// Each pair's run with snapshots less its run without.
        func differences(_ value: (Run) -> Double) -> Distribution? {
            Distribution(pairs.map { value($0.on) - value($0.off) })
        }
        var windowAddedMs: Double { differences(\.windowMs)?.median ?? .nan }
        var wallAddedMs: Double { differences(\.wallMs)?.median ?? .nan }
        /// The 95% interval of `wallAddedMs` (bootstrap over the pairs; nil for one pair).
        var wallAddedInterval: (low: Double, high: Double)? {
            guard pairs.count > 1 else { return nil }
            return differences(\.wallMs)?.medianConfidenceInterval()
        }
        var snapshots: Distribution? { Distribution(on.compactMap(\.snapshotMs)) }
        var inWindow: Distribution? { Distribution(on.compactMap(\.inWindowMs)) }
        /// The median run's share of its window spent in snapshots on the measured threads.
        var inWindowShare: Double {
            Distribution(on.compactMap { run in run.inWindowMs.map { $0 / run.windowMs } })?.median ?? .nan
        }
    }

    /// The cells with at least one pair, in the file's order of workloads.
    var comparisons: [Comparison] {
        var workloads: [String] = []
        for run in runs where !workloads.contains(run.workload) { workloads.append(run.workload) }
        return workloads.flatMap { workload in
            let ofWorkload = runs.filter { $0.workload == workload }
            return Set(ofWorkload.map(\.cell)).sorted().compactMap { cell -> Comparison? in
                let cellRuns = ofWorkload.filter { $0.cell == cell }
                let on = cellRuns.filter(\.snapshotsOn)
                let off = cellRuns.filter { !$0.snapshotsOn }
                let pairs = on.compactMap { run in
                    off.first { $0.round == run.round && $0.run == run.run }.map { (on: run, off: $0) }
                }
                return pairs.isEmpty ? nil : Comparison(workload: workload, cell: cell, pairs: pairs)
            }
        }
    }

    package func table() -> String {
        let ms = { (value: Double) in String(format: "%.1f", value) }
        let signed = { (value: Double) in String(format: "%+.1f", value) }
        let rows = comparisons.map { comparison -> [String] in
            let snapshots = comparison.snapshots
            let inWindow = comparison.inWindow
            return [
                comparison.workload, comparison.cell.description, String(comparison.pairs.count),
                ms(comparison.median(comparison.off, \.windowMs)) + " / "
                    + ms(comparison.median(comparison.on, \.windowMs)),
                signed(comparison.windowAddedMs),
                ms(comparison.median(comparison.off, \.wallMs)) + " / "
                    + ms(comparison.median(comparison.on, \.wallMs)),
                signed(comparison.wallAddedMs)
                    + (comparison.wallAddedInterval.map { " (\(signed($0.low))..\(signed($0.high)))" } ?? ""),
                snapshots.map { String(format: "%.2f / %.2f", $0.median, $0.max) } ?? "–",
                inWindow.map { String(format: "%.2f / %.2f", $0.median, $0.max) } ?? "–",
            ]
        }
        guard !rows.isEmpty else { return "No pair of runs with the snapshots on and off in \(Self.fileName).\n" }
        return MarkdownTable.render(
            header: [
                "image", "cell", "pairs", "window off / on (ms)", "added", "trial off / on (ms)",
                "added (95% interval)",
                "snapshots per run, median / max (ms)", "of them in the window, median / max (ms)",
            ],
            rows: rows,
            leftAligned: 2
        )
    }

    package func values() -> [String: String] {
        var values: [String: String] = [
            "residency_cost_target_ms": String(format: "%.0f", Self.targetMs),
            "residency_cost_window_target_pct": String(format: "%.0f", Self.windowShareTarget * 100),
        ]
        let comparisons = comparisons
        values["residency_cost_pairs"] = String(comparisons.map(\.pairs.count).min() ?? 0)
        // The article's cells resolve what the snapshots add through their pairs. HEIC's decode
        // varies by more than the snapshots take: there their own time is the bound the text quotes.
        let article = comparisons.filter { $0.workload == Self.articleWorkload }
        if let worst = article.max(by: { $0.wallAddedMs < $1.wallAddedMs }) {
            values["residency_cost_article_wall_added_max_ms"] = String(format: "%.1f", worst.wallAddedMs)
            values["residency_cost_article_wall_added_max_cell"] = worst.cell.description
        }
        if let worst = article.max(by: { $0.windowAddedMs < $1.windowAddedMs }) {
            values["residency_cost_article_window_added_max_ms"] = String(format: "%.1f", worst.windowAddedMs)
            values["residency_cost_article_window_added_max_cell"] = worst.cell.description
        }
        let heic = comparisons.filter { $0.workload == Self.heicWorkload }
        let snapshots = heic.compactMap(\.snapshots)
        if let median = snapshots.map(\.median).max(), let most = snapshots.map(\.max).max(),
            let window = Distribution(heic.flatMap { $0.pairs.flatMap { [$0.on.windowMs, $0.off.windowMs] } })
        {
            values["residency_cost_heic_snapshot_median_max_ms"] = String(format: "%.1f", median)
            values["residency_cost_heic_snapshot_max_ms"] = String(format: "%.1f", most)
            values["residency_cost_heic_window_median_ms"] = String(format: "%.0f", window.median)
        }
        if let worst = comparisons.max(by: { $0.inWindowShare < $1.inWindowShare }) {
            values["residency_cost_window_share_max_pct"] = String(format: "%.2f", worst.inWindowShare * 100)
        }
        let snapshotTimes = runs.compactMap(\.snapshotMs)
        if let all = Distribution(snapshotTimes) {
            values["residency_cost_snapshot_median_ms"] = String(format: "%.1f", all.median)
            values["residency_cost_snapshot_max_ms"] = String(format: "%.1f", all.max)
            values["residency_cost_snapshot_runs"] = String(all.count)
            values["residency_cost_snapshot_over_target"] = String(snapshotTimes.filter { $0 > Self.targetMs }.count)
        }
        return values
    }
}
