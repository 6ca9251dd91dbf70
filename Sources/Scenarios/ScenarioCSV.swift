import BenchCore
import Foundation

/// `scenario.csv`: one row per list-scroll run, units in the column names, appended run after run.
/// Every row says what produced it: every setting of the scroll (the server's bandwidth and the
/// fixture sizes included) and the `run_id` of the invocation, so that rows appended by
/// invocations with other settings are told apart (`groups`).
package enum ScenarioCSV {
    package static let fileName = "scenario.csv"
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
        ("max_image_pixels", { String($0.spec.maxImagePixels) }),
        ("bandwidth_bytes_per_second", { $0.bandwidthBytesPerSecond.map(String.init) ?? "" }),
        ("sizes", { $0.fixtureSizes.joined(separator: " ") }),
        ("fault", { $0.spec.fault?.rawValue ?? "none" }),
        ("fault_every", { $0.spec.fault == nil ? "" : String($0.spec.faultEvery) }),
        ("retries", { String($0.spec.retries) }),
        ("memory_limit_bytes", { $0.spec.memoryLimitBytes.map(String.init) ?? "" }),
        ("status", { $0.status.rawValue }),
        ("baseline_rss_bytes", { cell($0.baselineRSSBytes) }),
        ("peak_rss_bytes", { cell($0.peakRSSBytes) }),
        ("final_rss_bytes", { cell($0.finalRSSBytes) }),
        ("baseline_heap_bytes", { cell($0.baselineHeapBytes) }),
        ("peak_heap_bytes", { cell($0.peakHeapBytes) }),
        ("final_heap_bytes", { cell($0.finalHeapBytes) }),
        ("floor_bytes", { $0.floorBytes.map(String.init) ?? "" }),
        ("payload_bytes_all_rows", { String($0.payloadBytesAllRows) }),
        ("bytes_sent", { String($0.bytesSent) }),
        ("bytes_delivered", { cell($0.bytesDelivered) }),
        ("bytes_wasted", { cell($0.bytesWasted) }),
        ("server_requests", { String($0.serverRequests) }),
        ("requests_started", { cell($0.requestsStarted) }),
        ("requests_completed", { cell($0.requestsCompleted) }),
        ("requests_cancelled", { cell($0.requestsCancelled) }),
        ("requests_failed", { cell($0.requestsFailed) }),
        ("requests_retried", { cell($0.requestsRetried) }),
        ("rows_fallback", { cell($0.rowsFallback) }),
        ("rows_entered", { cell($0.rowsEntered) }),
        ("rows_shown", { cell($0.rowsShown) }),
        ("time_to_image_median_ms", { $0.timeToImageMedianMillis.map { String(format: "%.1f", $0) } ?? "" }),
        ("time_to_image_max_ms", { $0.timeToImageMaxMillis.map { String(format: "%.1f", $0) } ?? "" }),
        ("cache_hits", { cell($0.cacheHits) }),
        ("cache_evictions", { cell($0.cacheEvictions) }),
        ("cache_final_bytes", { cell($0.cacheFinalBytes) }),
        ("orphaned_files_removed", { cell($0.orphanedFilesRemoved) }),
        ("leftover_files", { String($0.leftoverFiles) }),
        ("duration_s", { $0.durationSeconds.map { String(format: "%.3f", $0) } ?? "" }),
        ("error", { $0.error }),
    ]

    /// A value, or an empty cell when it was not measured.
    static func cell(_ value: Int?) -> String { value.map(String.init) ?? "" }

    package static var header: String { CSV.line(columns.map(\.name) + [TrialsCSV.runIDColumn]) }

    package static func line(_ result: ScrollResult, runID: String) -> String {
        CSV.line(columns.map { $0.value(result) } + [runID])
    }

    /// The file with `results` of the invocation `runID` added after the rows it already has
    /// (`existing`: its text, empty for a new file). Refuses a file with other columns, naming `path`.
    package static func appending(
        _ results: [ScrollResult],
        runID: String,
        to existing: String,
        path: String
    ) throws -> String {
        let text = existing.isEmpty ? header + "\n" : existing
        guard text.hasPrefix(header + "\n") else {
            throw ScenarioError.foreignColumns(path: path)
        }
        return text + results.map { line($0, runID: runID) + "\n" }.joined()
    }

    // MARK: Reading: rows grouped by the settings that produced them

    /// The `sizes` column's fixtures ("6000x4000 800x600"), in row order; a malformed entry is left out.
    package static func fixtureSizes(_ field: String) -> [(width: Int, height: Int)] {
        field.split(separator: " ").compactMap { size in
            let sides = size.split(separator: "x").compactMap { Int($0) }
            return sides.count == 2 ? (sides[0], sides[1]) : nil
        }
    }

    /// What a chart or a table compares within one group: these may differ between its rows.
    package static let comparedColumns: Set<String> = ["strategy", "render", "max_concurrent"]
    /// Columns that say how a scroll was set up; rows that differ in any but `comparedColumns` are in different groups.
    package static let settingColumns = [
        "allocator", "rows", "visible_rows", "rows_per_second", "cache_limit_bytes",
        "max_pixel", "max_image_pixels", "bandwidth_bytes_per_second", "sizes",
        "fault", "fault_every", "retries", "memory_limit_bytes",
    ]
    /// Settings that files written before they were recorded (no `run_id` column) do not have.
    package static let unrecordedInOldFiles = ["max_image_pixels", "bandwidth_bytes_per_second", "sizes"]
    /// The value `groups` gives a setting an old file did not record.
    package static let notRecorded = "not recorded"

    /// The header of files written before the settings columns and `run_id`: still read, their
    /// missing settings `notRecorded`.
    static let oldHeader = CSV.line(
        columns.map(\.name).filter { !unrecordedInOldFiles.contains($0) && $0 != "floor_bytes" }
    )
    /// The header of files written before `floor_bytes`: still read (`ScrollFloor.bytes(row:)`
    /// gives their floor from their settings).
    static let headerBeforeFloor = CSV.line(
        columns.map(\.name).filter { $0 != "floor_bytes" } + [TrialsCSV.runIDColumn]
    )

    /// One setting of a group, and rows of a file grouped by their settings.
    package struct Group: Equatable, Sendable {
        /// `settingColumns` with this group's values, in that order.
        package var settings: [(column: String, value: String)]
        /// The rows, each as column name to value, in file order.
        package var rows: [[String: String]]
        /// The invocations (run ids) whose rows are in the group; empty for an old file.
        package var runIDs: [String]

        package static func == (a: Group, b: Group) -> Bool {
            a.settings.elementsEqual(b.settings, by: { $0 == $1 }) && a.rows == b.rows && a.runIDs == b.runIDs
        }
    }

    /// The rows of a scenario CSV grouped by their settings, in order of first appearance. Rows
    /// that differ only in `comparedColumns` share a group; any other setting starts another.
    package static func groups(_ text: String, path: String) throws -> [Group] {
        let table: [[String]]
        do { table = try CSV.parse(text) } catch { throw ScenarioError.malformed(path: path, reason: "\(error)") }
        guard let names = table.first else { throw ScenarioError.malformed(path: path, reason: "it is empty") }
        let headerLine = CSV.line(names)
        guard [header, headerBeforeFloor, oldHeader].contains(headerLine) else {
            throw ScenarioError.foreignColumns(path: path)
        }
        var groups: [Group] = []
        for (offset, fields) in table.dropFirst().enumerated() {
            guard fields.count == names.count else {
                throw ScenarioError.malformed(
                    path: path,
                    reason: "row \(offset + 1) has \(fields.count) fields, the header \(names.count)"
                )
            }
            var row = Dictionary(uniqueKeysWithValues: zip(names, fields))
            for column in unrecordedInOldFiles where row[column] == nil { row[column] = notRecorded }
            let settings = settingColumns.map { (column: $0, value: row[$0] ?? "") }
            let runID = row[TrialsCSV.runIDColumn]
            if let index = groups.firstIndex(where: { $0.settings.elementsEqual(settings, by: { $0 == $1 }) }) {
                groups[index].rows.append(row)
                if let runID, !groups[index].runIDs.contains(runID) { groups[index].runIDs.append(runID) }
            } else {
                groups.append(Group(settings: settings, rows: [row], runIDs: runID.map { [$0] } ?? []))
            }
        }
        return groups
    }

    /// The one group of a file that a chart draws whole; refuses rows of several settings,
    /// naming the settings that differ and their values.
    package static func singleGroup(_ text: String, path: String) throws -> Group? {
        let all = try groups(text, path: path)
        guard all.count > 1 else { return all.first }
        let differing = settingColumns.compactMap { column -> (column: String, values: [String])? in
            var values: [String] = []
            for group in all {
                let value = group.settings.first { $0.column == column }?.value ?? ""
                if !values.contains(value) { values.append(value) }
            }
            return values.count > 1 ? (column, values) : nil
        }
        throw ScenarioError.mixedSettings(
            path: path,
            groups: all.count,
            differing: differing.map {
                "\($0.column): \($0.values.map { $0.isEmpty ? "(none)" : $0 }.joined(separator: " / "))"
            }
        )
    }
}

extension ScenarioCSV {
    /// SCENARIO.md's peak table (`<!-- table:scenario-peaks -->`): per settings group, the settings
    /// in one line, then peak RSS over baseline in MB by cap (rows) and strategy and renderer
    /// (columns), median of the successful runs [min–max]. Groups never share a table.
    package static func peakTables(_ text: String, path: String) throws -> String {
        try groups(text, path: path).map(peakTable).joined(separator: "\n")
    }

    static func peakTable(_ group: Group) -> String {
        let ok = group.rows.filter { $0["status"] == "ok" }
        func ordered(_ column: String) -> [String] {
            var seen: [String] = []
            for row in ok { if let value = row[column], !seen.contains(value) { seen.append(value) } }
            return seen
        }
        let columns = ordered("render").flatMap { render in ordered("strategy").map { (strategy: $0, render: render) } }
        let caps = ordered("max_concurrent").sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }
        let settings = group.settings.map { "\($0.column) \($0.value.isEmpty ? "none" : $0.value)" }.joined(
            separator: ", "
        )
        var lines = [
            "Settings: \(settings); runs: \(group.runIDs.isEmpty ? "not recorded" : group.runIDs.joined(separator: ", ")).",
            "",
        ]
        lines.append(
            "| max concurrent | " + columns.map { "\($0.strategy), \($0.render)" }.joined(separator: " | ") + " |"
        )
        lines.append("|---|" + columns.map { _ in "---|" }.joined())
        for cap in caps {
            let cells = columns.map { column -> String in
                let peaks = ok.filter {
                    $0["strategy"] == column.strategy && $0["render"] == column.render && $0["max_concurrent"] == cap
                }
                .compactMap { row -> Double? in
                    guard let peak = row["peak_rss_bytes"].flatMap(Double.init),
                        let base = row["baseline_rss_bytes"].flatMap(Double.init)
                    else { return nil }
                    return (peak - base) / 1e6
                }
                guard let peak = Distribution(peaks) else { return "–" }
                return String(format: "%.1f [%.1f–%.1f]", peak.median, peak.min, peak.max)
            }
            lines.append("| \(cap) | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
