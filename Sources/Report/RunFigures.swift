import BenchCore
import Foundation

/// The tables of one run's REPORT.md, computed from its results: what `bench report` writes into
/// any run folder (the method, the article's four cases, every cell, the sweep).
package struct RunFigures {
    package var chart: ChartData
    /// `trials.json`'s context of the matrix run, when that file is there.
    package var context: RunContext?
    /// `environment.txt`, written next to the results when they were measured.
    package var environment: String?

    static let megabyte = 1_000_000.0

    package init(chart: ChartData, context: RunContext? = nil, environment: String? = nil) {
        self.chart = chart
        self.context = context
        self.environment = environment
    }

    /// The blocks a run's REPORT.md has (`RunFolderReport.skeleton`).
    package func blocks() -> [String: String] {
        [
            "method": methodTable(), "article": articleTable(), "matrix": matrixTable(),
            "sweep": sweepTable(), "sweep-sizes": sweepSizesTable(),
        ]
    }

    /// The article's four cases: its iOS figure beside our peak RSS over baseline (median and range)
    /// and heap peak, per allocator.
    package func articleTable() -> String {
        var header = ["case", "article (iOS)"]
        for allocator in chart.allocators {
            header += [
                "\(allocator.title): peak RSS", "\(allocator.title): heap peak", "\(allocator.title): final RSS",
            ]
        }
        var rows: [[String]] = []
        for article in ArticleCase.all {
            var row = [article.title, "~" + String(format: "%.0f", Double(article.articleBytes) / Self.megabyte)]
            for allocator in chart.allocators {
                let summary = chart.summary(article.cell(allocator))
                row.append(summary?.peakRSSDelta.map { "\(mb($0.median)) (\(mb($0.min))–\(mb($0.max)))" } ?? "–")
                row.append(summary?.heapPeakDelta.map { mb($0.distribution.median) } ?? "–")
                row.append(summary?.finalRSSDelta.map { mb($0.median) } ?? "–")
            }
            rows.append(row)
        }
        return "MB (10^6 bytes) over the baseline; ours: median (min–max) over runs.\n\n"
            + MarkdownTable.render(header: header, rows: rows, leftAligned: 1)
    }

    /// Every cell measured, smallest peak first.
    package func matrixTable() -> String {
        let header = [
            "strategy + renderer", "allocator", "ok", "median", "p10", "p90", "min", "max", "CV", "heap peak",
            "final RSS", "B per payload B",
        ]
        var rows: [[String]] = []
        for item in chart.rankedCases {
            for allocator in chart.allocators {
                let cell = TrialCell(strategy: item.strategy, render: item.render, allocator: allocator)
                guard let summary = chart.summary(cell), let rss = summary.peakRSSDelta else { continue }
                rows.append([
                    cell.caseTitle, allocator.title, "\(summary.succeeded)/\(summary.succeeded + summary.failed)",
                    mb(rss.median), mb(rss.p10), mb(rss.p90), mb(rss.min), mb(rss.max),
                    String(format: "%.1f%%", rss.coefficientOfVariation * 100),
                    summary.heapPeakDelta.map { mb($0.distribution.median) } ?? "–",
                    summary.finalRSSDelta.map { mb($0.median) } ?? "–",
                    summary.bytesHeldPerPayloadByte.map { String(format: "%.2f", $0) } ?? "–",
                ])
            }
        }
        return "Peak RSS over baseline in MB over runs, heap peak and final RSS medians; "
            + "the last column is the median peak over the payload size.\n\n"
            + MarkdownTable.render(header: header, rows: rows, leftAligned: 2)
    }

    package func sweepTable() -> String {
        guard let first = chart.sweep.first else { return "No sweep.csv: run `make sweep`.\n" }
        var header = ["strategy", "slope (B per payload B)", "intercept (MB)"]
        header += first.points.map { String(format: "%.1f MB", $0.payloadBytes / Self.megabyte) }
        let rows = chart.sweep.map { series -> [String] in
            var row = [
                series.title, series.fit.map { String(format: "%.2f", $0.slope) } ?? "–",
                series.fit.map { mb($0.intercept) } ?? "–",
            ]
            row += first.points.map { point in
                series.points.first { $0.step == point.step }.map { mb($0.peakRSSDelta.median) } ?? "–"
            }
            return row
        }
        return
            "Median peak RSS over baseline (MB) per payload size, renderer \(first.render.rawValue), \(first.allocator.title); "
            + "line fitted on the medians.\n\n" + MarkdownTable.render(header: header, rows: rows, leftAligned: 1)
    }

    package func sweepSizesTable() -> String {
        guard let first = chart.sweep.first else { return "No sweep.csv: run `make sweep`.\n" }
        let rows = first.points.map { point in
            [
                mb(Double(point.step.targetBytes)), "\(point.step.width) x \(point.step.height)",
                grouped(Int(point.payloadBytes)), mb(Double(point.step.width * point.step.height * 4)),
            ]
        }
        return MarkdownTable.render(
            header: ["target (MB)", "fixture (px)", "payload (bytes)", "its bitmap (MB)"],
            rows: rows,
            leftAligned: 0
        )
    }

    /// Runs planned per cell (trials.json), or the most any cell has.
    package var runsPerCell: String {
        context.map { String($0.runsPerCell) } ?? String(chart.summaries.map { $0.succeeded + $0.failed }.max() ?? 0)
    }

    package func methodTable() -> String {
        var rows: [[String]] = []
        if let context {
            rows.append(["measured", ISO8601DateFormatter().string(from: context.date)])
            rows.append(["kernel", context.kernel])
            rows.append(["CPUs", String(context.cpuCount)])
            rows.append(["command", "`\(context.command)`"])
            rows.append(["image", context.source])
            rows.append(["sampler interval asked", String(format: "%.0f µs", context.sampleIntervalMicros)])
        }
        let ok = chart.trials.filter(\.isSuccess)
        let hertz = Distribution(ok.compactMap(\.samplerHertz))
        rows.append(["runs per cell", runsPerCell])
        rows.append(["allocators", chart.allocators.map(\.title).joined(separator: ", ")])
        rows.append(["trials (failed)", "\(chart.trials.count) (\(chart.trials.count - ok.count))"])
        rows.append([
            "sampler rate achieved, median (min)",
            "\(hertz.map { String(format: "%.0f", $0.median) } ?? "–") Hz (\(hertz.map { String(format: "%.0f", $0.min) } ?? "–") Hz)",
        ])
        rows.append([
            "longest gap between samples",
            "\(ok.compactMap(\.maxSampleGapMillis).max().map { String(format: "%.1f", $0) } ?? "–") ms",
        ])
        var text = MarkdownTable.render(header: ["what", "value"], rows: rows, leftAligned: 2)
        if let environment, !environment.isEmpty {
            text += "\n```\n" + environment.trimmingCharacters(in: .whitespacesAndNewlines) + "\n```\n"
        }
        return text
    }

    // MARK: Formatting

    func mb(_ bytes: Double) -> String { Self.mb(bytes) }
    func grouped(_ value: Int) -> String { Self.grouped(value) }

    /// Bytes as MB (10^6 bytes) with one decimal.
    package static func mb(_ bytes: Double) -> String { String(format: "%.1f", bytes / megabyte) }

    /// 13107200 as "13,107,200".
    package static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return (value < 0 ? "-" : "") + groups.joined(separator: ",")
    }
}

extension ChartData {
    /// The article image's size on the wire: the largest body a successful article-case run fetched.
    package var payloadBytes: Int? {
        trials.filter { run in run.isSuccess && ArticleCase.all.contains { $0.strategy == run.strategy } }
            .compactMap(\.payloadBytes).max()
    }

    /// The decoded image's width and height, from a successful full render.
    package var imageSize: (width: Int, height: Int)? {
        guard let run = trials.first(where: { $0.isSuccess && $0.render == .full && $0.imageWidth != nil }),
            let width = run.imageWidth, let height = run.imageHeight
        else { return nil }
        return (width, height)
    }

    /// width x height x 4: the RGBA bitmap a full render keeps.
    package var bitmapBytes: Int? { imageSize.map { $0.width * $0.height * 4 } }
}
