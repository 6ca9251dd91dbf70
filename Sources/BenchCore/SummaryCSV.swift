import Foundation

/// `summary.csv`: one row per cell with the statistics of its successful runs, in bytes.
package enum SummaryCSV {
    package static let fileName = "summary.csv"
    package static let header = [
        "strategy", "render", "allocator", "runs_ok", "runs_failed", "payload_bytes",
        "peak_rss_delta_median_bytes", "peak_rss_delta_ci95_low_bytes", "peak_rss_delta_ci95_high_bytes",
        "peak_rss_delta_p90_bytes", "peak_rss_delta_min_bytes", "peak_rss_delta_max_bytes", "peak_rss_delta_cv",
        "peak_allocated_delta_median_bytes", "peak_heap_exact_delta_median_bytes", "final_rss_delta_median_bytes",
        "duration_median_s", "article_over_baseline_bytes",
    ]

    /// With `runID`, a last `run_id` column as in trials.csv.
    package static func render(_ summaries: [CellSummary], runID: String? = nil) -> String {
        var lines = [CSV.line(header + (runID == nil ? [] : [TrialsCSV.runIDColumn]))]
        for summary in summaries {
            let rss = summary.peakRSSDelta
            let interval = rss?.medianConfidenceInterval()
            func bytes(_ value: Double?) -> String { value.map { String(Int($0.rounded())) } ?? "" }
            let fields: [String] = [
                summary.cell.strategy, summary.cell.render.rawValue, summary.cell.allocator.rawValue,
                String(summary.succeeded), String(summary.failed), summary.payloadBytes.map(String.init) ?? "",
                bytes(rss?.median), bytes(interval?.low), bytes(interval?.high),
                bytes(rss?.p90), bytes(rss?.min), bytes(rss?.max),
                rss.map { String(format: "%.5f", $0.coefficientOfVariation) } ?? "",
                bytes(summary.peakAllocatedDelta?.median), bytes(summary.peakHeapExactDelta?.median),
                bytes(summary.finalRSSDelta?.median),
                summary.duration.map { String(format: "%.6f", $0.median) } ?? "",
                summary.articleOverBaselineBytes.map(String.init) ?? "",
            ]
            lines.append(CSV.line(fields + (runID.map { [$0] } ?? [])))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
