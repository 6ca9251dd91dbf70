import BenchCore
import Foundation
import Report

/// REPORT.md's "Who holds the peak": the holders of the article's cases under both allocators, the
/// cells whose exact heap peak is bimodal explained by the holders that differ between their high
/// and low runs, and what recording the holders costs. From results/holders/trials.json
/// (bench-reference measure holders), which keeps every run's holders.
package struct HolderFigures: Sendable {
    package var trials: [TrialResult]
    /// The `--max-pixel` the folder's settings.json records: the scaled floors' size; nil (unknown)
    /// leaves those floors empty.
    package var maxPixel: Int?

    package init(trials: [TrialResult], maxPixel: Int? = nil) {
        self.trials = trials.filter { $0.isSuccess && $0.holders != nil && $0.peakHeapExactBytes != nil }
        self.maxPixel = maxPixel
    }

    package static let folderName = "holders"

    /// The folder's run, or nil when it has no trials.json.
    package static func load(from folder: URL) throws -> HolderFigures? {
        let file = folder.appendingPathComponent(JSONExport.fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let export: JSONExport
        do {
            export = try JSONDecoder.trials.decode(JSONExport.self, from: Data(contentsOf: file))
        } catch {
            throw ReportError.malformed(path: file.path, problem: error)
        }
        do {
            return HolderFigures(trials: export.trials, maxPixel: try RunSettings.read(from: folder)?.maxPixel)
        } catch {
            throw ReportError.malformed(path: folder.appendingPathComponent(RunSettings.fileName).path, problem: error)
        }
    }

    func runs(_ cell: TrialCell) -> [TrialResult] { trials.filter { $0.cell == cell } }

    var cells: [TrialCell] { Set(trials.map(\.cell)).sorted() }

    /// Two groups of runs this far apart make a cell bimodal: the runs of one mode lie within a few
    /// hundred KB of each other.
    static let bimodalGapBytes = 2_000_000
    /// Recording is on by default while it costs less than this share of the measured window.
    static let costTarget = 0.02

    /// A cell's runs split at the largest gap between their exact heap peaks, when that gap is
    /// at least `bimodalGapBytes`.
    func modes(_ cell: TrialCell) -> (low: [TrialResult], high: [TrialResult])? {
        let sorted = runs(cell).sorted { $0.peakHeapExactBytes! < $1.peakHeapExactBytes! }
        guard sorted.count >= 2 else { return nil }
        let gaps = zip(sorted, sorted.dropFirst()).map { $1.peakHeapExactBytes! - $0.peakHeapExactBytes! }
        guard let widest = gaps.indices.max(by: { gaps[$0] < gaps[$1] }), gaps[widest] >= Self.bimodalGapBytes else {
            return nil
        }
        return (Array(sorted[...widest]), Array(sorted[(widest + 1)...]))
    }

    /// The median share of the measured window that recording took, per cell.
    func recordingShare(_ cell: TrialCell) -> Double? {
        let shares = runs(cell).compactMap { run -> Double? in
            guard let seconds = run.holderRecordingSeconds, let window = run.durationSeconds, window > 0 else {
                return nil
            }
            return seconds / window
        }
        return Distribution(shares)?.median
    }

    package func values() -> [String: String] {
        var values: [String: String] = [:]
        values["holders_runs_per_cell"] = String(
            Dictionary(grouping: trials, by: \.cell).values.map(\.count).max() ?? 0
        )
        values["holders_cells"] = String(cells.count)
        values["holders_bimodal_cells"] = String(cells.filter { modes($0) != nil }.count)
        values["holders_bimodal_gap_mb"] = String(format: "%.0f", Double(Self.bimodalGapBytes) / 1e6)
        values["holders_cost_target_pct"] = String(format: "%.0f", Self.costTarget * 100)
        if let threshold = trials.compactMap(\.holderThresholdBytes).max() {
            values["holders_threshold_kib"] = String(threshold / 1024)
        }
        let articleCells = ArticleCase.all.flatMap { article in Allocator.allCases.map(article.cell) }
        let shares = articleCells.compactMap { cell in recordingShare(cell).map { (cell, $0) } }
        if let worst = shares.max(by: { $0.1 < $1.1 }) {
            values["holders_cost_max_pct"] = String(format: "%.2f", worst.1 * 100)
            values["holders_cost_max_cell"] = worst.0.description
        }
        let events = articleCells.flatMap { runs($0).compactMap(\.holderEvents) }
        values["holders_events_max"] = String(events.max() ?? 0)
        return values
    }

    package func blocks() -> [String: String] {
        [
            "holders": holdersTable(), "holders-bimodal": bimodalTable(), "holders-cost": costTable(),
            "holders-floor": floorTable(), "holders-residency": residencyTable(),
        ]
    }

    static func named(_ holders: [PeakHolder], top: Int) -> String {
        holders.prefix(top).map {
            String(format: "%.1f", Double($0.bytes) / 1e6) + " `\($0.allocatedBy)` (\($0.module))"
        }
        .joined(separator: "; ")
    }

    /// The article's cases at each cell's median run: the exact heap peak and its largest holders.
    func holdersTable() -> String {
        var rows: [[String]] = []
        for article in ArticleCase.all {
            for allocator in Allocator.allCases {
                guard let median = TrialResult.medianHolderRun(runs(article.cell(allocator))),
                    let peak = median.peakHeapExactBytes, let small = median.smallBlocksBytes
                else { continue }
                rows.append([
                    article.title, allocator.title, String(format: "%.1f", Double(peak) / 1e6),
                    Self.named(median.holders ?? [], top: 3).isEmpty ? "–" : Self.named(median.holders ?? [], top: 3),
                    String(format: "%.1f", Double(small) / 1e6),
                ])
            }
        }
        guard !rows.isEmpty else { return Self.missing }
        return MarkdownTable.render(
            header: [
                "case", "allocator", "exact heap peak", "largest holders (MB, allocated by, file)", "small blocks",
            ],
            rows: rows,
            leftAligned: 4
        )
    }

    /// Every bimodal cell: its low and high runs, and the holders the high runs hold more (or less):
    /// the four largest changes, enough to make the gap when a copy took another one's place.
    func bimodalTable() -> String {
        var rows: [[String]] = []
        for cell in cells {
            guard let (low, high) = modes(cell),
                let lowRun = TrialResult.medianHolderRun(low), let highRun = TrialResult.medianHolderRun(high)
            else { continue }
            var grew = "–"
            if case .changes(let changes) = GateComparison.holderDiff(baseline: [lowRun], current: [highRun], limit: 4),
                !changes.isEmpty
            {
                grew = changes.map { String(format: "%+.1f", Double($0.bytes) / 1e6) + " `\($0.allocatedBy)`" }.joined(
                    separator: "; "
                )
            }
            rows.append([
                cell.description, "\(low.count) + \(high.count)",
                String(
                    format: "%.1f / %.1f",
                    Double(lowRun.peakHeapExactBytes!) / 1e6,
                    Double(highRun.peakHeapExactBytes!) / 1e6
                ),
                grew,
            ])
        }
        guard !rows.isEmpty else { return "No cell of the holders run is bimodal.\n" }
        return MarkdownTable.render(
            header: [
                "cell", "runs (low + high)", "exact heap peak, low / high (MB)",
                "what the high runs hold more or less (MB)",
            ],
            rows: rows,
            leftAligned: 4
        )
    }

    /// What recording cost in the article's cells: events and time inside the measured window.
    func costTable() -> String {
        var rows: [[String]] = []
        for article in ArticleCase.all {
            for allocator in Allocator.allCases {
                let cell = article.cell(allocator)
                let cellRuns = runs(cell)
                guard let share = recordingShare(cell),
                    let events = Distribution(cellRuns.compactMap(\.holderEvents).map(Double.init))?.median,
                    let seconds = Distribution(cellRuns.compactMap(\.holderRecordingSeconds))?.median,
                    let window = Distribution(cellRuns.compactMap(\.durationSeconds))?.median
                else { continue }
                rows.append([
                    article.title, allocator.title, String(format: "%.0f", events),
                    String(format: "%.3f", seconds * 1e3),
                    String(format: "%.0f", window * 1e3), String(format: "%.2f%%", share * 100),
                ])
            }
        }
        guard !rows.isEmpty else { return Self.missing }
        return MarkdownTable.render(
            header: [
                "case", "allocator", "blocks recorded or released", "recording (ms)", "measured window (ms)", "share",
            ],
            rows: rows,
            leftAligned: 2
        )
    }
}
