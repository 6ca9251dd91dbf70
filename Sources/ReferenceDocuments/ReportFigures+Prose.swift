import BenchCore
import Foundation
import Report

/// The figures the prose of README.md, docs/ and REPORT.md quotes beyond the tables: the article's own
/// numbers and what follows from them, the harness's settings, and what the committed runs say
/// about the harness itself (cost of a run, the sampler's cost, repeatability, the validation).
/// Each is computed here from the committed data or read from the code that sets it, so that no
/// sentence carries a number typed by hand.
extension ReportFigures {
    func proseValues() -> [String: String] {
        var values: [String: String] = [:]
        articleValues(into: &values)
        settingValues(into: &values)
        harnessValues(into: &values)
        heapModeValues(into: &values)
        if let validation { validationValues(validation, into: &values) }
        return values
    }

    /// The article's figures, and the arithmetic the report does with them.
    private func articleValues(into values: inout [String: String]) {
        let payload = Double(ArticleReference.payloadBytes)
        values["article_payload_mb"] = mb(payload)
        values["article_image_size"] = "\(ArticleReference.imageWidth) x \(ArticleReference.imageHeight)"
        values["article_idle_mb"] = String(format: "%.0f", Double(ArticleReference.idleAppBytes) / Self.megabyte)
        guard let data = ArticleReference.overBaselineBytes(strategy: "data", render: .none),
            let download = ArticleReference.overBaselineBytes(strategy: "download", render: .none),
            let dataFull = ArticleReference.overBaselineBytes(strategy: "data", render: .full),
            let downloadFull = ArticleReference.overBaselineBytes(strategy: "download", render: .full)
        else { return }
        let dataIncrement = Double(dataFull - data)
        let downloadIncrement = Double(downloadFull - download)
        values["article_data_render_increment_mb"] = String(format: "%.0f", dataIncrement / Self.megabyte)
        values["article_download_render_increment_mb"] = String(format: "%.0f", downloadIncrement / Self.megabyte)
        values["article_full_difference_mb"] = String(format: "%.0f", Double(dataFull - downloadFull) / Self.megabyte)
        values["article_render_increment_mb"] = String(
            format: "%.0f",
            (dataIncrement + downloadIncrement) / 2 / Self.megabyte
        )
        // The gauge's "MB" read as MB, and read as MiB (see "What differs from iOS").
        values["article_data_payloads"] = String(format: "%.1f", Double(data) / payload)
        values["article_data_payloads_if_mib"] = String(format: "%.1f", Double(data) * 1.048576 / payload)
    }

    /// Settings of the harness, read from the code that sets them.
    private func settingValues(into values: inout [String: String]) {
        let fixedSettle = String(TrialSpec.defaultSettleNanos / 1_000_000)
        values["settle_ms"] = fixedSettle
        switch settle {
        case "rule": values["matrix_settle"] = "the settle rule"
        case "fixed": values["matrix_settle"] = "the settle as a fixed \(fixedSettle) ms pause"
        default: values["matrix_settle"] = "a settle its files do not record"
        }
        let hertz = 1e9 / Double(TrialSpec.defaultSampleIntervalNanos)
        values["sampler_target_khz"] = String(format: "%.0f", hertz / 1000)
        values["rss_resolution_kib"] = String(CellSummary.rssResolutionBytes / 1024)
        if let first = chart.sweep.first, let smallest = first.points.first, let largest = first.points.last {
            values["sweep_smallest_mb"] = String(format: "%.0f", Double(smallest.step.targetBytes) / Self.megabyte)
            values["sweep_largest_mb"] = String(format: "%.0f", Double(largest.step.targetBytes) / Self.megabyte)
        }
    }

    /// What the committed runs say about the harness: the time a run takes and where it goes,
    /// the sampler's own cost, and how much the article's cells vary between runs.
    private func harnessValues(into values: inout [String: String]) {
        let ok = chart.trials.filter(\.isSuccess)
        if let wall = Distribution(ok.compactMap(\.wallSeconds)) {
            values["run_wall_s"] = String(format: "%.2f", wall.median)
        }
        if let startup = Distribution(ok.compactMap(\.startupSeconds)) {
            values["run_startup_ms"] = String(format: "%.0f", startup.median * 1000)
        }
        if let warmup = Distribution(ok.compactMap(\.warmupSeconds)) {
            values["run_warmup_ms"] = String(format: "%.0f", warmup.median * 1000)
        }
        let reporting = ok.compactMap { run -> Double? in
            guard let wall = run.wallSeconds, let startup = run.startupSeconds, let warmup = run.warmupSeconds,
                let duration = run.durationSeconds
            else { return nil }
            // Runs measured before settle_s was a column had the settle as a fixed pause of the maximum.
            let settle = run.settleSeconds ?? Double(TrialSpec.defaultSettleNanos) / 1e9
            return wall - startup - warmup - duration - settle
        }
        if let report = Distribution(reporting) {
            values["run_report_ms"] = String(format: "%.0f", report.median * 1000)
        }
        // Wall time of the whole committed matrix, and of its article cells (the default `bench run`).
        values["matrix_wall_s"] = String(format: "%.0f", chart.trials.compactMap(\.wallSeconds).reduce(0, +))
        let articleRuns = chart.trials.filter { run in ArticleCase.all.contains { $0.cell(run.allocator) == run.cell } }
        values["article_cells_wall_s"] = String(format: "%.0f", articleRuns.compactMap(\.wallSeconds).reduce(0, +))

        // The sampler thread's CPU time per sample, and as a share of one core at the rate it achieved.
        let perSample = ok.compactMap { run -> Double? in
            guard let cpu = run.samplerCPUSeconds, let samples = run.samples, samples > 0 else { return nil }
            return cpu / Double(samples)
        }
        if let cost = Distribution(perSample), let hertz = Distribution(ok.compactMap(\.samplerHertz)) {
            values["sampler_us_per_sample"] = String(format: "%.0f", cost.median * 1e6)
            values["sampler_core_pct"] = String(format: "%.1f", cost.median * hertz.median * 100)
        }

        // Repeatability of the article's cells: the largest CV where the peak is megabytes, and the
        // spread of the sub-megabyte cells in KB.
        let articleSummaries = chart.summaries.filter { summary in
            ArticleCase.all.contains { $0.cell(summary.cell.allocator) == summary.cell }
        }
        let large = articleSummaries.compactMap(\.peakRSSDelta).filter { $0.median >= 1e6 }
        if let worst = large.map(\.coefficientOfVariation).max() {
            values["article_max_cv_pct"] = String(format: "%.1f", worst * 100)
        }
        let small = articleSummaries.compactMap(\.peakRSSDelta).filter { $0.median < 1e6 }
        if let spread = small.map(\.standardDeviation).max() {
            values["article_small_cells_max_sd_kb"] = String(format: "%.0f", spread / 1e3)
        }
    }

    /// The two modes of a bimodal heap peak: every cell's lowest and highest exact heap peak over runs.
    private func heapModeValues(into values: inout [String: String]) {
        for summary in chart.summaries {
            guard let heap = summary.heapPeakDelta?.distribution else { continue }
            let key = "\(summary.cell.strategy)_\(summary.cell.render.rawValue)_\(summary.cell.allocator.rawValue)"
            values[key + "_heap_min_mb"] = mb(heap.min)
            values[key + "_heap_max_mb"] = mb(heap.max)
        }
    }

    /// results/validation.csv (scripts/validate.py): how far the tools are from ours.
    private func validationValues(_ rows: [[String: Double]], into values: inout [String: String]) {
        func relative(_ ours: Double, _ theirs: Double) -> Double { abs(ours - theirs) / theirs * 100 }
        // Cases with a real peak: the tools agree with ours within this much (heap, medians of their runs,
        // as validate.py's table compares them).
        let real = rows.filter { ($0["ours_heap_peak_bytes"] ?? 0) >= 10e6 }
        let differences = real.flatMap { row -> [Double] in
            guard let ours = row["ours_heap_peak_bytes"] else { return [] }
            return ["heaptrack_heap_peak_bytes", "massif_heap_peak_bytes"].compactMap {
                row[$0].map { relative(ours, $0) }
            }
        }
        if let worst = differences.max() { values["validation_heap_max_diff_pct"] = String(format: "%.1f", worst) }
        if let small = rows.first(where: { ($0["ours_heap_peak_bytes"] ?? .infinity) < 10e6 }),
            let ours = small["ours_heap_peak_bytes"]
        {
            values["validation_small_case_heap_mb"] = String(format: "%.2f", ours / Self.megabyte)
            if let heaptrack = small["heaptrack_heap_peak_bytes"] {
                values["validation_small_case_heaptrack_diff_kb"] = String(format: "%.0f", abs(heaptrack - ours) / 1e3)
            }
            if let massif = small["massif_heap_peak_bytes"] {
                values["validation_small_case_massif_diff_kb"] = String(format: "%.0f", abs(massif - ours) / 1e3)
            }
        }
    }
}
