import Foundation
import BenchCore

/// Every number REPORT.md shows, computed from the results: its tables (Markdown blocks) and the
/// values its sentences quote. Nothing here is typed in except the article's own figures.
public struct ReportFigures {
    public var chart: ChartData
    /// `trials.json`'s context of the matrix run, when that file is there.
    public var context: RunContext?
    /// `environment.txt`, written next to the results when they were measured.
    public var environment: String?
    /// The `cold-warm` runs (scripts/cold-warm.sh), when the folder has them.
    public var coldWarm: ColdWarmComparison?
    /// validation.csv's rows (scripts/validate.py), numeric columns by name, when the folder has it.
    public var validation: [[String: Double]]?
    /// The example corpus run and the serial-against-parallel timings, when the folder has them.
    public var corpusAndJobs = CorpusAndJobsFigures(corpus: nil, timings: nil, comparison: nil)
    /// The `example` run (make example: AsyncHTTPClient through the library), when the folder has it.
    public var example: ExampleComparison?
    /// encodings.csv (scripts/encodings.py), when the folder has it.
    public var encodings: EncodingCosts?
    /// The holders run (make holders-reference: results/holders/), when the folder has it.
    public var holders: HolderFigures?
    /// The stacked bars of the holders chart: the folder's holders.csv, else the holders run's.
    public var holdersChart: HoldersChart?
    /// The overhead runs and the settle's evidence (scripts/overhead.sh: results/overhead/), when the folder has them.
    public var overhead = OverheadFigures(phases: nil, settle: nil, timings: nil)

    static let megabyte = 1_000_000.0

    public init(chart: ChartData, context: RunContext? = nil, environment: String? = nil,
                coldWarm: ColdWarmComparison? = nil, validation: [[String: Double]]? = nil) {
        self.chart = chart
        self.context = context
        self.environment = environment
        self.coldWarm = coldWarm
        self.validation = validation
    }

    // MARK: Facts read off the runs

    /// The article image's size on the wire: the largest body a successful article-case run fetched.
    public var payloadBytes: Int? {
        chart.trials.filter { run in run.isSuccess && ArticleCase.all.contains { $0.strategy == run.strategy } }
            .compactMap(\.payloadBytes).max()
    }

    /// The decoded image's width and height, from a successful full render.
    public var imageSize: (width: Int, height: Int)? {
        guard let run = chart.trials.first(where: { $0.isSuccess && $0.render == .full && $0.imageWidth != nil }),
              let width = run.imageWidth, let height = run.imageHeight else { return nil }
        return (width, height)
    }

    /// width x height x 4: the RGBA bitmap a full render keeps.
    public var bitmapBytes: Int? { imageSize.map { $0.width * $0.height * 4 } }

    // MARK: Values quoted in sentences

    public func values() -> [String: String] {
        var values = proseValues().merging(corpusAndJobs.values()) { first, _ in first }
            .merging(exampleValues()) { first, _ in first }
        values.merge(encodings?.values() ?? [:]) { ours, _ in ours }
        values.merge(holders?.values() ?? [:]) { ours, _ in ours }
        values.merge(overhead.values()) { ours, _ in ours }
        if let payloadBytes {
            values["payload_bytes"] = grouped(payloadBytes)
            values["payload_mb"] = mb(Double(payloadBytes))
            // CFData rounds a growing buffer's capacity up to the next power of two (CFData.c).
            let capacity = 1 << (Int.bitWidth - (payloadBytes - 1).leadingZeroBitCount)
            values["payload_buffer_capacity_bytes"] = grouped(capacity)
            values["payload_buffer_capacity_mb"] = mb(Double(capacity))
            values["payload_buffer_plus_copy_mb"] = mb(Double(capacity + payloadBytes))
            values["two_payloads_mb"] = mb(Double(2 * payloadBytes))
        }
        if let imageSize, let bitmapBytes {
            values["image_size"] = "\(imageSize.width) x \(imageSize.height)"
            values["bitmap_bytes"] = grouped(bitmapBytes)
            values["bitmap_mb"] = mb(Double(bitmapBytes))
            values["bitmap_mib"] = String(format: "%.1f", Double(bitmapBytes) / 1_048_576)
            if let payloadBytes { values["bitmap_plus_payload_mb"] = mb(Double(bitmapBytes + payloadBytes)) }
        }
        values["runs_per_cell"] = runsPerCell

        for summary in chart.summaries {
            let key = "\(summary.cell.strategy)_\(summary.cell.render.rawValue)_\(summary.cell.allocator.rawValue)"
            guard let rss = summary.peakRSSDelta else { continue }
            values[key + "_mb"] = mb(rss.median)
            if let heap = summary.heapPeakDelta?.distribution { values[key + "_heap_mb"] = mb(heap.median) }
            if let final = summary.finalRSSDelta { values[key + "_final_mb"] = mb(final.median) }
            if let payloadBytes { values[key + "_payloads"] = String(format: "%.2f", rss.median / Double(payloadBytes)) }
            if let bitmapBytes, summary.cell.render == .full {
                values[key + "_minus_bitmap_mb"] = mb(rss.median - Double(bitmapBytes))
            }
        }
        for series in chart.sweep {
            guard let fit = series.fit else { continue }
            values["sweep_slope_\(series.strategy)_\(series.render.rawValue)"] = String(format: "%.2f", fit.slope)
        }
        if let download = chart.sweep.first(where: { $0.strategy == "download" && $0.render == .none }), let fit = download.fit {
            // libcurl hands over at most CURL_MAX_WRITE_SIZE (16 KiB) per write callback.
            values["sweep_download_bytes_per_chunk"] = String(format: "%.0f", fit.slope * 16384)
        }
        if let first = chart.sweep.first {
            values["sweep_runs"] = String(first.points.map(\.peakRSSDelta.count).max() ?? 0)
            values["sweep_allocator"] = first.allocator.title
            values["sweep_sizes_mb"] = first.points.map { String(format: "%.0f", Double($0.step.targetBytes) / Self.megabyte) }
                .joined(separator: ", ")
        }
        for article in ArticleCase.all {
            values["article_\(article.strategy)_\(article.render.rawValue)_mb"] = String(format: "%.0f", Double(article.articleBytes) / Self.megabyte)
        }
        if let coldWarm {
            values["coldwarm_server"] = coldWarm.server ?? "an external server"
            for allocator in coldWarm.allocators {
                for strategy in coldWarm.strategies {
                    guard let cost = coldWarm.firstRequestCost(strategy: strategy, allocator: allocator) else { continue }
                    let key = "coldwarm_\(strategy)_\(allocator.rawValue)"
                    values[key + "_warm_mb"] = mb(cost.warm.median)
                    values[key + "_cold_mb"] = mb(cost.cold.median)
                    values[key + "_cost_mb"] = mb(cost.cold.median - cost.warm.median)
                    if let heap = cost.coldHeap { values[key + "_cold_heap_mb"] = mb(heap.median) }
                }
            }
        }
        return values
    }

    // MARK: Tables

    public func blocks() -> [String: String] {
        ["method": methodTable(), "article": articleTable(), "matrix": matrixTable(),
         "sweep": sweepTable(), "sweep-sizes": sweepSizesTable(), "cold-warm": coldWarmTable(),
         "summary": articleSummaryTable(), "article-claims": articleClaimsTable(), "example": exampleTable(),
         "encodings": encodings?.table() ?? "No encodings.csv in this folder: `make encodings` measures it."]
            .merging(corpusAndJobs.blocks()) { first, _ in first }
            .merging(holders?.blocks() ?? HolderFigures(trials: []).blocks()) { first, _ in first }
            .merging(overhead.blocks()) { first, _ in first }
    }

    /// The article's own table (iOS, Xcode's memory gauge), from ArticleReference.
    public func articleClaimsTable() -> String {
        let idle = Double(ArticleReference.idleAppBytes)
        var rows = [["idle app", String(format: "~%.0f", idle / Self.megabyte), "0"]]
        for article in ArticleCase.all {
            let over = Double(article.articleBytes)
            rows.append([article.title, String(format: "~%.0f", (idle + over) / Self.megabyte), String(format: "~%.0f", over / Self.megabyte)])
        }
        return MarkdownTable.render(header: ["case", "app total (MB)", "over the idle app (MB)"], rows: rows, leftAligned: 1)
    }

    /// What `bench run` prints for its default matrix (the article's four cases, both allocators),
    /// from the committed runs of those cells: the README's example output.
    public func articleSummaryTable() -> String {
        let articleRuns = chart.trials.filter { run in ArticleCase.all.contains { $0.cell(run.allocator) == run.cell } }
        let summaries = CellSummary.rankedByPeakRSSDelta(CellSummary.summarize(articleRuns))
        return "```\nCells ranked by median peak RSS delta, smallest first.\n" + SummaryTable.render(summaries) + "```\n"
    }

    /// Each strategy's peak RSS over baseline warmed up and cold, and the difference: what the
    /// first request of a process costs. Fetch only; medians over runs.
    public func coldWarmTable() -> String {
        guard let coldWarm else { return "No cold-warm runs: run `scripts/cold-warm.sh results/cold-warm`.\n" }
        var header = ["strategy"]
        for allocator in coldWarm.allocators {
            header += ["\(allocator.title): warm", "cold", "cold − warm", "cold heap peak"]
        }
        let rows = coldWarm.strategies.map { strategy -> [String] in
            var row = [strategy]
            for allocator in coldWarm.allocators {
                guard let cost = coldWarm.firstRequestCost(strategy: strategy, allocator: allocator) else {
                    row += ["–", "–", "–", "–"]
                    continue
                }
                row += [mb(cost.warm.median), mb(cost.cold.median), mb(cost.cold.median - cost.warm.median),
                        cost.coldHeap.map { mb($0.median) } ?? "–"]
            }
            return row
        }
        return "Peak RSS over baseline in MB, fetch only, medians over runs; the image from "
            + (coldWarm.server ?? "an external server") + " on loopback.\n\n"
            + MarkdownTable.render(header: header, rows: rows, leftAligned: 1)
    }

    /// The article's four cases: its iOS figure beside our peak RSS over baseline (median and range)
    /// and heap peak, per allocator.
    public func articleTable() -> String {
        var header = ["case", "article (iOS)"]
        for allocator in chart.allocators {
            header += ["\(allocator.title): peak RSS", "\(allocator.title): heap peak", "\(allocator.title): final RSS"]
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
    public func matrixTable() -> String {
        let header = ["strategy + renderer", "allocator", "ok", "median", "p10", "p90", "min", "max", "CV", "heap peak", "final RSS", "B per payload B"]
        var rows: [[String]] = []
        for item in chart.rankedCases {
            for allocator in chart.allocators {
                let cell = TrialCell(strategy: item.strategy, render: item.render, allocator: allocator)
                guard let summary = chart.summary(cell), let rss = summary.peakRSSDelta else { continue }
                rows.append([cell.caseTitle, allocator.title, "\(summary.succeeded)/\(summary.succeeded + summary.failed)",
                             mb(rss.median), mb(rss.p10), mb(rss.p90), mb(rss.min), mb(rss.max),
                             String(format: "%.1f%%", rss.coefficientOfVariation * 100),
                             summary.heapPeakDelta.map { mb($0.distribution.median) } ?? "–",
                             summary.finalRSSDelta.map { mb($0.median) } ?? "–",
                             summary.bytesHeldPerPayloadByte.map { String(format: "%.2f", $0) } ?? "–"])
            }
        }
        return "Peak RSS over baseline in MB over runs, heap peak and final RSS medians; "
            + "the last column is the median peak over the payload size.\n\n"
            + MarkdownTable.render(header: header, rows: rows, leftAligned: 2)
    }

    public func sweepTable() -> String {
        guard let first = chart.sweep.first else { return "No sweep.csv: run `make sweep`.\n" }
        var header = ["strategy", "slope (B per payload B)", "intercept (MB)"]
        header += first.points.map { String(format: "%.1f MB", $0.payloadBytes / Self.megabyte) }
        let rows = chart.sweep.map { series -> [String] in
            var row = [series.title, series.fit.map { String(format: "%.2f", $0.slope) } ?? "–",
                       series.fit.map { mb($0.intercept) } ?? "–"]
            row += first.points.map { point in
                series.points.first { $0.step == point.step }.map { mb($0.peakRSSDelta.median) } ?? "–"
            }
            return row
        }
        return "Median peak RSS over baseline (MB) per payload size, renderer \(first.render.rawValue), \(first.allocator.title); "
            + "line fitted on the medians.\n\n" + MarkdownTable.render(header: header, rows: rows, leftAligned: 1)
    }

    public func sweepSizesTable() -> String {
        guard let first = chart.sweep.first else { return "No sweep.csv: run `make sweep`.\n" }
        let rows = first.points.map { point in
            [mb(Double(point.step.targetBytes)), "\(point.step.width) x \(point.step.height)",
             grouped(Int(point.payloadBytes)), mb(Double(point.step.width * point.step.height * 4))]
        }
        return MarkdownTable.render(header: ["target (MB)", "fixture (px)", "payload (bytes)", "its bitmap (MB)"],
                                    rows: rows, leftAligned: 0)
    }

    /// Runs planned per cell (trials.json), or the most any cell has.
    var runsPerCell: String {
        context.map { String($0.runsPerCell) } ?? String(chart.summaries.map { $0.succeeded + $0.failed }.max() ?? 0)
    }

    public func methodTable() -> String {
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
        rows.append(["sampler rate achieved, median (min)",
                     "\(hertz.map { String(format: "%.0f", $0.median) } ?? "–") Hz (\(hertz.map { String(format: "%.0f", $0.min) } ?? "–") Hz)"])
        rows.append(["longest gap between samples", "\(ok.compactMap(\.maxSampleGapMillis).max().map { String(format: "%.1f", $0) } ?? "–") ms"])
        var text = MarkdownTable.render(header: ["what", "value"], rows: rows, leftAligned: 2)
        if let environment, !environment.isEmpty {
            text += "\n```\n" + environment.trimmingCharacters(in: .whitespacesAndNewlines) + "\n```\n"
        }
        return text
    }

    // MARK: Formatting

    func mb(_ bytes: Double) -> String { String(format: "%.1f", bytes / Self.megabyte) }

    func grouped(_ value: Int) -> String {
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

/// A GitHub-flavoured Markdown table: text columns left-aligned, numbers right-aligned.
public enum MarkdownTable {
    public static func render(header: [String], rows: [[String]], leftAligned: Int) -> String {
        func line(_ cells: [String]) -> String { "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |" }
        let rule = header.indices.map { $0 < leftAligned ? "---" : "---:" }
        return ([line(header), "|" + rule.joined(separator: "|") + "|"] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    /// The cells of a table rendered by `render`, header first (escaped pipes are not split).
    public static func parse(_ text: String) -> [[String]] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("|") && !$0.hasPrefix("|---") && !$0.hasPrefix("|:") }
            .map { line in
                let inner = line.dropFirst().dropLast()
                return inner.replacingOccurrences(of: "\\|", with: "\u{0}").split(separator: "|", omittingEmptySubsequences: false)
                    .map { $0.replacingOccurrences(of: "\u{0}", with: "|").trimmingCharacters(in: .whitespaces) }
            }
    }
}
