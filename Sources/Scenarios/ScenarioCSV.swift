import Foundation
import BenchCore

/// `scenario.csv`: one row per list-scroll run, units in the column names, appended run after run.
public enum ScenarioCSV {
    static let columns: [(name: String, value: @Sendable (ScrollResult) -> String)] = [
        ("scenario", { _ in "list-scroll" }),
        ("strategy", { $0.spec.strategy.rawValue }),
        ("render", { $0.spec.render.rawValue }),
        ("allocator", { $0.spec.allocator.rawValue }),
        ("max_concurrent", { String($0.spec.maxConcurrent) }),
        ("rows", { String($0.spec.rowURLs.count) }),
        ("visible_rows", { String($0.spec.visibleRows) }),
        ("rows_per_second", { String($0.spec.rowsPerSecond) }),
        ("cache_limit_bytes", { String($0.spec.cacheLimitBytes) }),
        ("max_pixel", { String($0.spec.maxPixel) }),
        ("fault", { $0.spec.fault?.rawValue ?? "none" }),
        ("fault_every", { $0.spec.fault == nil ? "" : String($0.spec.faultEvery) }),
        ("retries", { String($0.spec.retries) }),
        ("memory_limit_bytes", { $0.spec.memoryLimitBytes.map(String.init) ?? "" }),
        ("status", { $0.status }),
        ("baseline_rss_bytes", { String($0.baselineRSSBytes) }),
        ("peak_rss_bytes", { String($0.peakRSSBytes) }),
        ("final_rss_bytes", { String($0.finalRSSBytes) }),
        ("baseline_heap_bytes", { String($0.baselineHeapBytes) }),
        ("peak_heap_bytes", { String($0.peakHeapBytes) }),
        ("final_heap_bytes", { String($0.finalHeapBytes) }),
        ("payload_bytes_all_rows", { String($0.payloadBytesAllRows) }),
        ("bytes_sent", { String($0.bytesSent) }),
        ("bytes_delivered", { String($0.bytesDelivered) }),
        ("bytes_wasted", { String($0.bytesWasted) }),
        ("server_requests", { String($0.serverRequests) }),
        ("requests_started", { String($0.requestsStarted) }),
        ("requests_completed", { String($0.requestsCompleted) }),
        ("requests_cancelled", { String($0.requestsCancelled) }),
        ("requests_failed", { String($0.requestsFailed) }),
        ("requests_retried", { String($0.requestsRetried) }),
        ("rows_fallback", { String($0.rowsFallback) }),
        ("rows_entered", { String($0.rowsEntered) }),
        ("rows_shown", { String($0.rowsShown) }),
        ("time_to_image_median_ms", { $0.timeToImageMedianMillis.map { String(format: "%.1f", $0) } ?? "" }),
        ("time_to_image_max_ms", { $0.timeToImageMaxMillis.map { String(format: "%.1f", $0) } ?? "" }),
        ("cache_hits", { String($0.cacheHits) }),
        ("cache_evictions", { String($0.cacheEvictions) }),
        ("cache_final_bytes", { String($0.cacheFinalBytes) }),
        ("orphaned_files_removed", { String($0.orphanedFilesRemoved) }),
        ("leftover_files", { String($0.leftoverFiles) }),
        ("duration_s", { String(format: "%.3f", $0.durationSeconds) }),
        ("error", { $0.error }),
    ]

    public static var header: String { CSV.line(columns.map(\.name)) }

    public static func line(_ result: ScrollResult) -> String {
        CSV.line(columns.map { $0.value(result) })
    }

    /// The file with `results` added after the rows it already has (`existing`: its text, empty
    /// for a new file). Refuses a file with other columns, naming `path`.
    public static func appending(_ results: [ScrollResult], to existing: String, path: String) throws -> String {
        let text = existing.isEmpty ? header + "\n" : existing
        guard text.hasPrefix(header + "\n") else {
            throw ScenarioError.foreignColumns(path: path)
        }
        return text + results.map(line).map { $0 + "\n" }.joined()
    }
}
