import BenchCore
import Foundation
import Report

/// Every number REPORT.md shows, computed from the results: its tables (Markdown blocks) and the
/// values its sentences quote. Nothing here is typed in except the article's own figures.
package struct ReportFigures {
    package var chart: ChartData
    /// `trials.json`'s context of the matrix run, when that file is there.
    package var context: RunContext?
    /// The matrix run's `--max-pixel`, from its settings.json; nil (unknown) when the folder has none.
    package var maxPixel: Int?
    /// The matrix's settle as its settings.json records it (`BENCH_SETTLE`: rule or fixed); nil: not recorded.
    package var settle: String?
    /// `environment.txt`, written next to the results when they were measured.
    package var environment: String?
    /// The `cold-warm` runs (scripts/cold-warm.sh), when the folder has them.
    package var coldWarm: ColdWarmComparison?
    /// validation.csv's rows (scripts/validate.py), numeric columns by name, when the folder has it.
    package var validation: [[String: Double]]?
    /// The example corpus run and the serial-against-parallel timings, when the folder has them.
    package var corpusAndJobs = CorpusAndJobsFigures(corpus: nil, timings: nil, comparison: nil)
    /// The `example` run (bench-reference measure example: AsyncHTTPClient through the library), when the
    /// folder has it.
    package var example: ExampleComparison?
    /// encodings.csv (scripts/encodings.py), when the folder has it.
    package var encodings: EncodingCosts?
    /// What each encoding's peaks are made of (encodings.csv and its holders and residency files).
    var encodingBreakdown: EncodingBreakdown?
    /// decode-time.csv (scripts/decode-time.sh), when the folder has it.
    package var decodeTime: DecodeTime?
    /// decode-stages.csv (the same script's profile of the stream renderer), when the folder has it.
    package var decodeStages: DecodeStages?
    /// residency-cost.csv (scripts/residency-cost.py: the snapshots on and off), when the folder has it.
    package var residencyCost: ResidencyCost?
    /// The holders run (bench-reference measure holders: results/holders/), when the folder has it.
    package var holders: HolderFigures?
    /// The stacked bars of the holders chart: the folder's holders.csv, else the holders run's.
    package var holdersChart: HoldersChart?
    /// The residency chart's bars: the folder's residency.csv, else the holders run's.
    package var residencyChart: ResidencyChart?
    /// The overhead runs and the settle's evidence (scripts/overhead.sh: results/overhead/), when the folder has them.
    package var overhead = OverheadFigures(phases: nil, settle: nil, timings: nil)
    /// The image server under load (bench-reference measure server: results/server/), when the folder has it.
    package var server = ServerFigures(runs: nil)
    /// `--memory-budget`'s prediction against the matrix's trials (docs/MEASUREMENT.md), when the folder has them.
    package var predictedCost: PredictedCostFigures?
    /// Which build measured each study (results/provenance.json); empty when the folder has none.
    package var provenance = ReferenceProvenance()

    static let megabyte = 1_000_000.0

    package init(
        chart: ChartData,
        context: RunContext? = nil,
        environment: String? = nil,
        coldWarm: ColdWarmComparison? = nil,
        validation: [[String: Double]]? = nil
    ) {
        self.chart = chart
        self.context = context
        self.environment = environment
        self.coldWarm = coldWarm
        self.validation = validation
    }

    // MARK: The run's own figures (RunFigures: what `bench report` writes for any run)

    /// The run's tables and facts, shared with a user's `bench report`.
    package var run: RunFigures { RunFigures(chart: chart, context: context, environment: environment) }
    package var payloadBytes: Int? { chart.payloadBytes }
    package var imageSize: (width: Int, height: Int)? { chart.imageSize }
    package var bitmapBytes: Int? { chart.bitmapBytes }
    var runsPerCell: String { run.runsPerCell }
    package func methodTable() -> String { run.methodTable() }
    package func articleTable() -> String { run.articleTable() }
    package func matrixTable() -> String { run.matrixTable() }
    package func sweepTable() -> String { run.sweepTable() }
    package func sweepSizesTable() -> String { run.sweepSizesTable() }

    // MARK: Values quoted in sentences

    package func values() -> [String: String] {
        var values = proseValues().merging(corpusAndJobs.values()) { first, _ in first }
            .merging(exampleValues()) { first, _ in first }
        values.merge(encodings?.values() ?? [:]) { ours, _ in ours }
        values.merge(decodeTime?.values() ?? [:]) { ours, _ in ours }
        values.merge(holders?.values() ?? [:]) { ours, _ in ours }
        values.merge(overhead.values()) { ours, _ in ours }
        values.merge(residencyCost?.values() ?? [:]) { ours, _ in ours }
        values.merge(server.values()) { ours, _ in ours }
        values.merge(predictedCost?.values() ?? PredictedCostFigures.ruleValues()) { ours, _ in ours }
        values.merge(provenance.values()) { ours, _ in ours }
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
            if let payloadBytes {
                values[key + "_payloads"] = String(format: "%.2f", rss.median / Double(payloadBytes))
            }
            if let bitmapBytes, summary.cell.render == .full {
                values[key + "_minus_bitmap_mb"] = mb(rss.median - Double(bitmapBytes))
            }
        }
        for series in chart.sweep {
            guard let fit = series.fit else { continue }
            values["sweep_slope_\(series.strategy)_\(series.render.rawValue)"] = String(format: "%.2f", fit.slope)
        }
        if let download = chart.sweep.first(where: { $0.strategy == "download" && $0.render == .none }),
            let fit = download.fit
        {
            // libcurl hands over at most CURL_MAX_WRITE_SIZE (16 KiB) per write callback.
            values["sweep_download_bytes_per_chunk"] = String(format: "%.0f", fit.slope * 16384)
        }
        if let first = chart.sweep.first {
            values["sweep_runs"] = String(first.points.map(\.peakRSSDelta.count).max() ?? 0)
            values["sweep_allocator"] = first.allocator.title
            values["sweep_sizes_mb"] = first.points.map {
                String(format: "%.0f", Double($0.step.targetBytes) / Self.megabyte)
            }
            .joined(separator: ", ")
        }
        for article in ArticleCase.all {
            values["article_\(article.strategy)_\(article.render.rawValue)_mb"] = String(
                format: "%.0f",
                Double(article.articleBytes) / Self.megabyte
            )
        }
        if let coldWarm {
            values["coldwarm_server"] = coldWarm.server ?? "an external server"
            for allocator in coldWarm.allocators {
                for strategy in coldWarm.strategies {
                    guard let cost = coldWarm.firstRequestCost(strategy: strategy, allocator: allocator) else {
                        continue
                    }
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

    package func blocks() -> [String: String] {
        [
            "method": methodTable(), "article": articleTable(), "matrix": matrixTable(),
            "sweep": sweepTable(), "sweep-sizes": sweepSizesTable(), "cold-warm": coldWarmTable(),
            "summary": articleSummaryTable(), "article-claims": articleClaimsTable(), "example": exampleTable(),
            "provenance": provenance.table(),
            "encodings": encodings?.table() ?? "No encodings.csv in this folder: `make encodings` measures it.",
            "decode-time": decodeTime?.table()
                ?? "No \(DecodeTime.fileName) in this folder: `make decode-time` measures it.\n",
            "decode-stages": decodeStages?.table(time: decodeTime)
                ?? "No \(DecodeStages.fileName) in this folder: `make decode-time` measures it.\n",
            "residency-cost": residencyCost?.table()
                ?? "No \(ResidencyCost.fileName) in this folder: `bench-reference measure residency-cost` measures it.\n",
        ]
        .merging(corpusAndJobs.blocks()) { first, _ in first }
        .merging(holders?.blocks() ?? HolderFigures(trials: []).blocks()) { first, _ in first }
        .merging(overhead.blocks()) { first, _ in first }
        .merging(encodingBreakdownBlocks()) { first, _ in first }
        .merging(server.blocks()) { first, _ in first }
        .merging(["predicted-cost": predictedCost?.table() ?? PredictedCostFigures(cells: []).table()]) { first, _ in
            first
        }
    }

    func encodingBreakdownBlocks() -> [String: String] {
        guard let encodingBreakdown else {
            let none = "No encodings.csv in this folder: `make encodings` measures it.\n"
            return ["encodings-floor": none, "encodings-residency": none]
        }
        return [
            "encodings-floor": encodingBreakdown.floorTable(),
            "encodings-residency": encodingBreakdown.residencyTable(),
        ]
    }

    /// The article's own table (iOS, Xcode's memory gauge), from ArticleReference.
    package func articleClaimsTable() -> String {
        let idle = Double(ArticleReference.idleAppBytes)
        var rows = [["idle app", String(format: "~%.0f", idle / Self.megabyte), "0"]]
        for article in ArticleCase.all {
            let over = Double(article.articleBytes)
            rows.append([
                article.title, String(format: "~%.0f", (idle + over) / Self.megabyte),
                String(format: "~%.0f", over / Self.megabyte),
            ])
        }
        return MarkdownTable.render(
            header: ["case", "app total (MB)", "over the idle app (MB)"],
            rows: rows,
            leftAligned: 1
        )
    }

    /// What `bench run` prints for its default matrix (the article's four cases, both allocators),
    /// from the committed runs of those cells: the README's example output.
    package func articleSummaryTable() -> String {
        let articleRuns = chart.trials.filter { run in ArticleCase.all.contains { $0.cell(run.allocator) == run.cell } }
        // Runs measured before trials.csv had floor_bytes get their floor by its rule.
        let floored = RuleFloor.filled(
            articleRuns,
            sourceWidth: imageSize?.width,
            sourceHeight: imageSize?.height,
            maxPixel: maxPixel
        )
        let summaries = CellSummary.rankedByPeakRSSDelta(CellSummary.summarize(floored))
        return "```\nCells ranked by median peak RSS delta, smallest first.\n" + SummaryTable.render(summaries)
            + "```\n"
    }

    /// Each strategy's peak RSS over baseline warmed up and cold, and the difference: what the
    /// first request of a process costs. Fetch only; medians over runs.
    package func coldWarmTable() -> String {
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
                row += [
                    mb(cost.warm.median), mb(cost.cold.median), mb(cost.cold.median - cost.warm.median),
                    cost.coldHeap.map { mb($0.median) } ?? "–",
                ]
            }
            return row
        }
        return "Peak RSS over baseline in MB, fetch only, medians over runs; the image from "
            + (coldWarm.server ?? "an external server") + " on loopback.\n\n"
            + MarkdownTable.render(header: header, rows: rows, leftAligned: 1)
    }

    // MARK: Formatting

    func mb(_ bytes: Double) -> String { RunFigures.mb(bytes) }

    func grouped(_ value: Int) -> String { RunFigures.grouped(value) }
}
