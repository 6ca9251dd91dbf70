import BenchCore
import Foundation

/// Turns the results into the tidy, already aggregated files the gnuplot scripts read:
/// whitespace-separated `.dat` tables (blocks split by two blank lines, gnuplot's `index`)
/// and `vars.gp`, which names what the blocks are. gnuplot only draws; every number is made here.
package struct ChartData {
    package var summaries: [CellSummary]
    package var trials: [TrialResult]
    package var timelineRuns: [TimelineRun]
    package var sweep: [SweepSeries]

    static let megabyte = 1_000_000.0

    package init(
        trials: [TrialResult],
        timelines: [RunKey: [TimelinePoint]],
        sweep: [(step: SweepStep, result: TrialResult)]
    ) {
        self.trials = trials
        summaries = CellSummary.summarize(trials)
        timelineRuns = TimelineRun.chosen(from: trials).compactMap { run in
            guard let points = timelines[run.key], !points.isEmpty else { return nil }
            var run = run
            run.points = points
            return run
        }
        self.sweep = SweepSeries.make(sweep)
    }

    /// The allocators in the order they appear in the results.
    package var allocators: [Allocator] {
        summaries.map(\.cell.allocator).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    package func summary(_ cell: TrialCell) -> CellSummary? {
        summaries.first { $0.cell == cell }
    }

    /// File name -> contents.
    package func files() -> [String: String] {
        var files = [
            "article.dat": articleTable(),
            "matrix.dat": matrixTable(),
            "vars.gp": variables(),
        ]
        if !timelineRuns.isEmpty {
            files["timeline.dat"] = timelineTable()
            files["timeline_marks.dat"] = timelineMarks()
        }
        if !sweep.isEmpty { files["sweep.dat"] = sweepTable() }
        return files
    }

    // MARK: Chart 1: the article's four cases

    /// One block per allocator; a row per article case: x, article MB, then our median, p10, p90, min, max.
    func articleTable() -> String {
        var blocks: [String] = []
        for allocator in allocators {
            var lines = ["# \(allocator.rawValue): case article_mb median_mb p10_mb p90_mb min_mb max_mb"]
            for (index, article) in ArticleCase.all.enumerated() {
                guard let rss = summary(article.cell(allocator))?.peakRSSDelta else { continue }
                lines.append(row([Double(index), Double(article.articleBytes) / Self.megabyte] + spread(rss)))
            }
            blocks.append(lines.joined(separator: "\n"))
        }
        return blocks.joined(separator: "\n\n\n") + "\n"
    }

    // MARK: Chart 4: every cell, ranked

    /// The strategy x renderer rows, smallest first by the mean of the allocators' medians.
    package var rankedCases: [(strategy: String, render: RenderMode)] {
        var keys: [String] = []
        var medians: [String: [Double]] = [:]
        var cases: [String: (String, RenderMode)] = [:]
        for summary in summaries {
            guard let median = summary.peakRSSDelta?.median else { continue }
            let key = summary.cell.caseTitle
            if medians[key] == nil {
                keys.append(key)
                cases[key] = (summary.cell.strategy, summary.cell.render)
            }
            medians[key, default: []].append(median)
        }
        func mean(_ key: String) -> Double { medians[key]!.reduce(0, +) / Double(medians[key]!.count) }
        return keys.sorted { mean($0) < mean($1) }.map { cases[$0]! }
    }

    /// One block per allocator; a row per ranked case: rank, median, p10, p90, min, max.
    func matrixTable() -> String {
        let ranked = rankedCases
        var blocks: [String] = []
        for allocator in allocators {
            var lines = ["# \(allocator.rawValue): rank median_mb p10_mb p90_mb min_mb max_mb"]
            for (rank, item) in ranked.enumerated() {
                let cell = TrialCell(strategy: item.strategy, render: item.render, allocator: allocator)
                guard let rss = summary(cell)?.peakRSSDelta else { continue }
                lines.append(row([Double(rank)] + spread(rss)))
            }
            blocks.append(lines.joined(separator: "\n"))
        }
        return blocks.joined(separator: "\n\n\n") + "\n"
    }

    // MARK: Chart 2: memory over time

    /// One block per charted run: milliseconds since the baseline, RSS and heap over their baselines in MB.
    /// Long runs are thinned to at most `maxPoints` by keeping each bucket's highest sample, so peaks survive.
    func timelineTable(maxPoints: Int = 800) -> String {
        timelineRuns.map { run in
            var lines = ["# \(run.key.cell) run \(run.key.run): t_ms rss_mb heap_mb"]
            for point in Self.thin(run.points, to: maxPoints) {
                lines.append(
                    row([
                        point.seconds * 1000,
                        Double(point.residentBytes - run.baselineRSS) / Self.megabyte,
                        Double(point.allocatedBytes - run.baselineAllocated) / Self.megabyte,
                    ])
                )
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n\n") + "\n"
    }

    /// A row per charted run: where the fetch ended and the decode began (ms, RSS MB, heap MB at that moment).
    func timelineMarks() -> String {
        var lines = ["# case fetch_end_ms rss_mb heap_mb"]
        for (index, run) in timelineRuns.enumerated() {
            let fetched = run.fetchSeconds
            let point = run.points.last { $0.seconds <= fetched } ?? run.points[0]
            lines.append(
                row([
                    Double(index), fetched * 1000,
                    Double(point.residentBytes - run.baselineRSS) / Self.megabyte,
                    Double(point.allocatedBytes - run.baselineAllocated) / Self.megabyte,
                ])
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func thin(_ points: [TimelinePoint], to maxPoints: Int) -> [TimelinePoint] {
        guard points.count > maxPoints else { return points }
        let bucket = (points.count + maxPoints - 1) / maxPoints
        return stride(from: 0, to: points.count, by: bucket).map { start in
            let slice = points[start..<Swift.min(start + bucket, points.count)]
            let resident = slice.map(\.residentBytes).max()!
            let allocated = slice.map(\.allocatedBytes).max()!
            return TimelinePoint(seconds: slice.first!.seconds, residentBytes: resident, allocatedBytes: allocated)
        }
    }

    // MARK: Chart 3: payload-size sweep

    /// One block per series; a row per size: payload MB, median, p10, p90, min, max, fitted MB.
    func sweepTable() -> String {
        sweep.map { series in
            var lines = ["# \(series.title): payload_mb median_mb p10_mb p90_mb min_mb max_mb fit_mb"]
            for point in series.points {
                lines.append(
                    row(
                        [point.payloadBytes / Self.megabyte] + spread(point.peakRSSDelta)
                            + [series.fit.map { $0(point.payloadBytes) / Self.megabyte } ?? .nan]
                    )
                )
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n\n") + "\n"
    }

    // MARK: Names for the blocks

    func variables() -> String {
        var lines = ["# Written by `bench report` from the CSVs in results/; do not edit."]
        lines.append("allocator_count = \(allocators.count)")
        lines.append(array("allocator_title", allocators.map(\.title)))
        lines.append(array("case_title", ArticleCase.all.map(\.title)))
        lines.append(
            "array case_article_mb[\(ArticleCase.all.count)] = ["
                + ArticleCase.all.map { format(Double($0.articleBytes) / Self.megabyte) }.joined(separator: ", ") + "]"
        )
        if let bitmap = bitmapBytes {
            lines.append("bitmap_mb = \(format(Double(bitmap) / Self.megabyte))")
        }
        if let payload = payloadBytes {
            lines.append("payload_mb = \(format(Double(payload) / Self.megabyte))")
        }
        let ranked = rankedCases
        lines.append("matrix_count = \(ranked.count)")
        lines.append(
            array(
                "matrix_title",
                ranked.map {
                    TrialCell(strategy: $0.strategy, render: $0.render, allocator: .system).caseTitle
                }
            )
        )
        lines.append("timeline_count = \(timelineRuns.count)")
        lines.append(
            array(
                "timeline_title",
                timelineRuns.map { run in
                    ArticleCase.all.first { $0.cell(run.key.cell.allocator) == run.key.cell }?.title
                        ?? run.key.cell.caseTitle
                }
            )
        )
        lines.append("timeline_allocator = \"\(timelineRuns.first?.key.cell.allocator.title ?? "")\"")
        lines.append("sweep_count = \(sweep.count)")
        lines.append(
            array(
                "sweep_title",
                sweep.map { series in
                    series.title(among: sweep)
                        + (series.fit.map { String(format: ": %.2f B held per payload byte", $0.slope) } ?? "")
                }
            )
        )
        if let render = sweep.first?.render {
            let allocators = sweep.map(\.allocator).reduce(into: [Allocator]()) {
                if !$0.contains($1) { $0.append($1) }
            }
            lines.append(
                "sweep_condition = \"renderer \(render.rawValue), \(allocators.map(\.title).joined(separator: " and "))\""
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Formatting

    func spread(_ distribution: Distribution) -> [Double] {
        [distribution.median, distribution.p10, distribution.p90, distribution.min, distribution.max].map {
            $0 / Self.megabyte
        }
    }

    func row(_ values: [Double]) -> String {
        values.map(format).joined(separator: " ")
    }

    func format(_ value: Double) -> String {
        value.isNaN ? "NaN" : String(format: "%.4f", value)
    }

    /// gnuplot 5.4 arrays cannot be empty: an empty list declares nothing.
    func array(_ name: String, _ values: [String]) -> String {
        guard !values.isEmpty else { return "# \(name): none" }
        let quoted = values.map { "\"" + $0.replacingOccurrences(of: "\"", with: "'") + "\"" }
        return "array \(name)[\(values.count)] = [\(quoted.joined(separator: ", "))]"
    }
}

/// One run drawn on the memory-over-time chart, with what is needed to put it over its baseline.
package struct TimelineRun: Sendable {
    package var key: RunKey
    package var baselineRSS: Int
    package var baselineAllocated: Int
    package var fetchSeconds: Double
    package var points: [TimelinePoint] = []

    /// For each article case, the run whose peak RSS delta is its cell's median (the lower middle
    /// for an even count), under the first allocator in the results: typical, not the best or worst.
    static func chosen(from trials: [TrialResult]) -> [TimelineRun] {
        guard let allocator = trials.first?.allocator else { return [] }
        return ArticleCase.all.compactMap { article in
            let runs = trials.filter {
                $0.cell == article.cell(allocator) && $0.isSuccess && $0.peakRSSDeltaBytes != nil
            }
            .sorted { $0.peakRSSDeltaBytes! < $1.peakRSSDeltaBytes! }
            guard !runs.isEmpty else { return nil }
            let median = runs[(runs.count - 1) / 2]
            guard let baselineRSS = median.baselineRSSBytes, let baselineAllocated = median.baselineAllocatedBytes,
                let fetchSeconds = median.fetchSeconds
            else { return nil }
            return TimelineRun(
                key: RunKey(cell: median.cell, run: median.run),
                baselineRSS: baselineRSS,
                baselineAllocated: baselineAllocated,
                fetchSeconds: fetchSeconds
            )
        }
    }

    /// The runs `chosen` would pick, so only their lines of timeline.csv need reading.
    package static func keys(for trials: [TrialResult]) -> Set<RunKey> {
        Set(chosen(from: trials).map(\.key))
    }
}

/// One strategy's peak RSS delta at each payload size of the sweep, and the line through the medians.
package struct SweepSeries: Sendable {
    package struct Point: Sendable {
        package var step: SweepStep
        package var payloadBytes: Double
        package var peakRSSDelta: Distribution
    }

    package var strategy: String
    package var render: RenderMode
    package var allocator: Allocator
    package var points: [Point]
    /// Fitted on the medians: the slope is the bytes held per payload byte.
    package var fit: LinearFit?

    package var title: String {
        render == .none ? strategy : "\(strategy) + \(render.rawValue)"
    }

    /// The title, with the allocator when the sweep measured more than one.
    package func title(among all: [SweepSeries]) -> String {
        all.contains { $0.allocator != allocator } ? "\(title) [\(allocator.rawValue)]" : title
    }

    static func make(_ rows: [(step: SweepStep, result: TrialResult)]) -> [SweepSeries] {
        var cells: [TrialCell] = []
        for row in rows where !cells.contains(row.result.cell) { cells.append(row.result.cell) }
        return cells.compactMap { cell in
            let mine = rows.filter { $0.result.cell == cell && $0.result.isSuccess }
            var steps: [SweepStep] = []
            for row in mine where !steps.contains(row.step) { steps.append(row.step) }
            let points = steps.sorted { $0.targetBytes < $1.targetBytes }.compactMap { step -> Point? in
                let runs = mine.filter { $0.step == step }.map(\.result)
                guard let delta = Distribution(runs.compactMap(\.peakRSSDeltaBytes)),
                    let payload = runs.compactMap(\.payloadBytes).max()
                else { return nil }
                return Point(step: step, payloadBytes: Double(payload), peakRSSDelta: delta)
            }
            guard !points.isEmpty else { return nil }
            return SweepSeries(
                strategy: cell.strategy,
                render: cell.render,
                allocator: cell.allocator,
                points: points,
                fit: LinearFit(points.map { (x: $0.payloadBytes, y: $0.peakRSSDelta.median) })
            )
        }
    }
}
