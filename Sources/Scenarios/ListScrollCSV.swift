import BenchCore
import Foundation

/// `list-scroll.csv`: one row per list-scroll run, units in the column names, appended run after run.
/// Every row says what produced it: every setting of the scroll (the server's bandwidth and the
/// fixture sizes included) and the `run_id` of the invocation, so that rows appended by
/// invocations with other settings are told apart (`groups`). Its columns are declared once, here
/// (`declared`): the writer, the readers' settings and compared columns, docs/OUTPUT.md's table and
/// `bench list --output-files --json` come from them.
package enum ListScrollCSV {
    package static let fileName = "list-scroll.csv"
    /// The file's name in folders of the previous format (`ResultsFormat.previous`): read, never written.
    package static var previousFileName: String { previousName(of: fileName) }

    /// What a column is to a reader: the workload's name, what one chart compares within a group
    /// (`comparedColumns`), how a scroll was set up (`settingColumns`: rows that differ there are in
    /// different groups), or what the scroll measured.
    package enum Role: Sendable { case workload, compared, setting, measured }

    private static func text(_ value: Int?) -> String { TrialsCSV.text(value) }
    private static func text(_ value: Double?, digits: Int) -> String { TrialsCSV.text(value, digits: digits) }

    /// A column of the file and what it is to a reader.
    package struct Column: Sendable {
        package var role: Role
        package var written: WrittenColumn<ScrollResult>

        init(
            _ role: Role,
            _ name: String,
            _ unit: ResultColumn.Unit,
            _ polarity: ResultColumn.Polarity,
            _ meaning: String,
            write: @escaping @Sendable (ScrollResult) -> String
        ) {
            self.role = role
            written = WrittenColumn(name, unit, polarity, meaning, write: write)
        }
    }

    /// Every column, in the file's order, with its role.
    static let declared: [Column] = [
        .init(.workload, "scenario", .text, .neither, "the workload: list-scroll") { _ in "list-scroll" },
        .init(.compared, "strategy", .text, .neither, "the scroll's fetch strategy: data or download") {
            $0.spec.strategy.rawValue
        },
        .init(.compared, "render", .text, .neither, "the renderer of each row's image") { $0.spec.render.rawValue },
        .init(.setting, "allocator", .text, .neither, "system (glibc) or jemalloc") { $0.spec.allocator.rawValue },
        .init(
            .compared,
            "max_concurrent",
            .count,
            .neither,
            "--max-concurrent: most requests (fetch and decode) at once"
        ) {
            String($0.spec.maxConcurrent)
        },
        .init(.setting, "rows", .count, .neither, "--rows: the list's rows, one distinct URL each") {
            String($0.spec.rowURLs.count)
        },
        .init(.setting, "visible_rows", .count, .neither, "--visible: the rows on screen at once") {
            String($0.spec.visibleRows)
        },
        .init(.setting, "rows_per_second", .hertz, .neither, "--speed: rows the window moves a second") {
            String($0.spec.rowsPerSecond)
        },
        .init(.setting, "cache_limit_bytes", .bytes, .neither, "--cache-limit of the decoded-image cache; 0: no cache")
        {
            String($0.spec.cacheLimitBytes)
        },
        .init(.setting, "max_pixel", .pixels, .neither, "--max-pixel: the thumbnail's longer side") {
            String($0.spec.maxPixel)
        },
        .init(.setting, "max_image_pixels", .pixels, .neither, "--max-image-pixels: larger decodes are refused") {
            String($0.spec.maxImagePixels)
        },
        .init(
            .setting,
            "bandwidth_bytes_per_second",
            .bytes,
            .neither,
            "--bandwidth: the server's throttle a second; empty: none"
        ) {
            text($0.bandwidthBytesPerSecond)
        },
        .init(.setting, "sizes", .text, .neither, "the fixtures the rows cycle over, WIDTHxHEIGHT in row order") {
            $0.fixtureSizes.joined(separator: " ")
        },
        .init(.setting, "fault", .text, .neither, "--fault the server acts out; none: no fault") {
            $0.spec.fault?.rawValue ?? "none"
        },
        .init(.setting, "fault_every", .count, .neither, "--fault-every: the fault's rows; empty: no fault") {
            $0.spec.fault == nil ? "" : String($0.spec.faultEvery)
        },
        .init(.setting, "retries", .count, .neither, "--retries of a failed request before its placeholder") {
            String($0.spec.retries)
        },
        .init(.setting, "memory_limit_bytes", .bytes, .neither, "--memory-limit: the child's RLIMIT_DATA; empty: none")
        {
            text($0.spec.memoryLimitBytes)
        },
        .init(
            .measured,
            "status",
            .text,
            .neither,
            "ok, or why the scroll has no measurement (crashed, timeout, harness_error)"
        ) {
            $0.status.rawValue
        },
        .init(.measured, "baseline_rss_bytes", .bytes, .neither, "the child's RSS after its warm-up") {
            text($0.baselineRSSBytes)
        },
        .init(.measured, "peak_rss_bytes", .bytes, .lowerIsBetter, "the child's peak RSS over the scroll") {
            text($0.peakRSSBytes)
        },
        .init(.measured, "final_rss_bytes", .bytes, .lowerIsBetter, "RSS after the scroll and the settle") {
            text($0.finalRSSBytes)
        },
        .init(.measured, "baseline_heap_bytes", .bytes, .neither, "the live heap after the warm-up") {
            text($0.baselineHeapBytes)
        },
        .init(
            .measured,
            "peak_heap_bytes",
            .bytes,
            .lowerIsBetter,
            "the live heap's peak (exact with the malloc wrappers)"
        ) {
            text($0.peakHeapBytes)
        },
        .init(.measured, "final_heap_bytes", .bytes, .lowerIsBetter, "the live heap after the scroll and the settle") {
            text($0.finalHeapBytes)
        },
        .init(
            .measured,
            "floor_bytes",
            .bytes,
            .neither,
            "the bitmaps of the rows on screen at once, the largest such window"
        ) {
            text($0.floorBytes)
        },
        .init(
            .measured,
            "payload_bytes_all_rows",
            .bytes,
            .neither,
            "every row's payload: what a list without cancellation fetches once"
        ) {
            String($0.payloadBytesAllRows)
        },
        .init(
            .measured,
            "bytes_sent",
            .bytes,
            .lowerIsBetter,
            "body bytes the server sent during the scroll (warm-up excluded)"
        ) {
            String($0.bytesSent)
        },
        .init(.measured, "bytes_delivered", .bytes, .neither, "body bytes of the requests that finished their transfer")
        {
            text($0.bytesDelivered)
        },
        .init(
            .measured,
            "bytes_wasted",
            .bytes,
            .lowerIsBetter,
            "sent but never an image: cancelled or failed transfers"
        ) {
            text($0.bytesWasted)
        },
        .init(.measured, "server_requests", .count, .neither, "requests the server received during the scroll") {
            String($0.serverRequests)
        },
        .init(.measured, "requests_started", .count, .neither, "requests the loader started") {
            text($0.requestsStarted)
        },
        .init(.measured, "requests_completed", .count, .neither, "of those, completed") { text($0.requestsCompleted) },
        .init(.measured, "requests_cancelled", .count, .neither, "cancelled: their row left the window") {
            text($0.requestsCancelled)
        },
        .init(.measured, "requests_failed", .count, .lowerIsBetter, "failed after their last retry") {
            text($0.requestsFailed)
        },
        .init(.measured, "requests_retried", .count, .neither, "retries made") { text($0.requestsRetried) },
        .init(
            .measured,
            "rows_fallback",
            .count,
            .lowerIsBetter,
            "rows that showed a placeholder: their request failed"
        ) {
            text($0.rowsFallback)
        },
        .init(.measured, "rows_entered", .count, .neither, "rows that entered the window") { text($0.rowsEntered) },
        .init(.measured, "rows_shown", .count, .higherIsBetter, "rows that got their image while visible") {
            text($0.rowsShown)
        },
        .init(
            .measured,
            "time_to_image_median_ms",
            .milliseconds,
            .lowerIsBetter,
            "median time from a row entering to its image, over rows shown"
        ) {
            text($0.timeToImageMedianMillis, digits: 1)
        },
        .init(.measured, "time_to_image_max_ms", .milliseconds, .lowerIsBetter, "the longest such time") {
            text($0.timeToImageMaxMillis, digits: 1)
        },
        .init(.measured, "cache_hits", .count, .higherIsBetter, "rows served from the decoded-image cache") {
            text($0.cacheHits)
        },
        .init(.measured, "cache_evictions", .count, .neither, "images the cache evicted") { text($0.cacheEvictions) },
        .init(.measured, "cache_final_bytes", .bytes, .neither, "the cache's bytes at the end") {
            text($0.cacheFinalBytes)
        },
        .init(
            .measured,
            "orphaned_files_removed",
            .count,
            .neither,
            "partial downloads of cancelled tasks the loader removed"
        ) {
            text($0.orphanedFilesRemoved)
        },
        .init(.measured, "leftover_files", .count, .lowerIsBetter, "files left in the child's TMPDIR when it exited") {
            String($0.leftoverFiles)
        },
        .init(.measured, "duration_s", .seconds, .neither, "the scroll's duration") {
            text($0.durationSeconds, digits: 3)
        },
        .init(.measured, "error", .text, .neither, "why the scroll failed, in the harness's words") { $0.error },
    ]

    package static let columns = declared.map(\.written)

    /// The header's fields: the columns, then the invocation's `run_id`.
    package static var headerFields: [String] { WrittenColumn.header(columns, runID: true) }
    package static var header: String { CSV.line(headerFields) }

    /// One row as a CSV line with its newline: what is appended as soon as its scroll ends.
    package static func line(_ result: ScrollResult, runID: String) -> String {
        WrittenColumn.lines(columns, rows: [result], runID: runID)
    }

    /// Refuses an existing file (`existing`: its text, empty for none) that rows of this version
    /// cannot be appended to, naming `path`.
    package static func checkAppendable(_ existing: String, path: String) throws {
        guard existing.isEmpty || existing.hasPrefix(header + "\n") else {
            throw ScenarioError.foreignColumns(path: path)
        }
    }

    /// The file with `results` of the invocation `runID` added after the rows it already has
    /// (`existing`: its text, empty for a new file). Refuses a file with other columns, naming `path`.
    package static func appending(
        _ results: [ScrollResult],
        runID: String,
        to existing: String,
        path: String
    ) throws -> String {
        try checkAppendable(existing, path: path)
        return (existing.isEmpty ? header + "\n" : existing) + results.map { line($0, runID: runID) }.joined()
    }

    // MARK: Reading: rows grouped by the settings that produced them

    /// The name of a list-scroll file (list-scroll.csv, list-scroll-speed.csv, ...) in a folder of the
    /// previous format: scenario.csv, scenario-speed.csv, ...
    package static func previousName(of name: String) -> String {
        let prefix = "list-scroll"
        return name.hasPrefix(prefix) ? "scenario" + name.dropFirst(prefix.count) : name
    }

    /// The list-scroll file `name` in `folder`: its own name, or in a folder of the previous format
    /// (`ResultsFormat.previous`) the name it had there; nil when neither is there.
    package static func url(of name: String = fileName, in folder: URL) -> URL? {
        [name, previousName(of: name)].map { folder.appendingPathComponent($0) }.first {
            FileManager.default.fileExists(atPath: $0.path)
        }
    }

    /// The `sizes` column's fixtures ("6000x4000 800x600"), in row order; a malformed entry is left out.
    package static func fixtureSizes(_ field: String) -> [(width: Int, height: Int)] {
        field.split(separator: " ").compactMap { size in
            let sides = size.split(separator: "x").compactMap { Int($0) }
            return sides.count == 2 ? (sides[0], sides[1]) : nil
        }
    }

    /// What a chart or a table compares within one group: these may differ between its rows.
    package static let comparedColumns = Set(declared.filter { $0.role == .compared }.map(\.written.name))
    /// Columns that say how a scroll was set up; rows that differ in any but `comparedColumns` are in different groups.
    package static let settingColumns = declared.filter { $0.role == .setting }.map(\.written.name)

    /// One setting of a group, and rows of a file grouped by their settings.
    package struct Group: Equatable, Sendable {
        /// `settingColumns` with this group's values, in that order.
        package var settings: [(column: String, value: String)]
        /// The rows, each as column name to value, in file order.
        package var rows: [[String: String]]
        /// The invocations (run ids) whose rows are in the group.
        package var runIDs: [String]

        package static func == (a: Group, b: Group) -> Bool {
            a.settings.elementsEqual(b.settings, by: { $0 == $1 }) && a.rows == b.rows && a.runIDs == b.runIDs
        }
    }

    /// Refuses a header other than this version's: one of the scroll's own columns only (written
    /// before format 1, without the settings columns, `run_id` or `floor_bytes`) as an older format,
    /// naming the command that measures it again; any other as another file's.
    static func checkHeader(_ names: [String], path: String) throws {
        guard names != headerFields else { return }
        if names.first == columns.first?.name, Set(names).isSubset(of: headerFields) {
            throw ScenarioError.olderFormat(path: path)
        }
        throw ScenarioError.foreignColumns(path: path)
    }

    /// The rows of a list-scroll CSV grouped by their settings, in order of first appearance. Rows
    /// that differ only in `comparedColumns` share a group; any other setting starts another.
    package static func groups(_ text: String, path: String) throws -> [Group] {
        let table: [[String]]
        do { table = try CSV.parse(text) } catch { throw ScenarioError.malformed(path: path, reason: "\(error)") }
        guard let names = table.first else { throw ScenarioError.malformed(path: path, reason: "it is empty") }
        try checkHeader(names, path: path)
        var groups: [Group] = []
        for (offset, fields) in table.dropFirst().enumerated() {
            guard fields.count == names.count else {
                throw ScenarioError.malformed(
                    path: path,
                    reason: "row \(offset + 1) has \(fields.count) fields, the header \(names.count)"
                )
            }
            let row = Dictionary(uniqueKeysWithValues: zip(names, fields))
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

    /// Refuses the list-scroll rows of `folder` (list-scroll.csv, or a previous format's scenario.csv)
    /// when they come from several settings: its chart (plots/list-scroll.gp) draws every row as one.
    package static func checkOneSetting(in folder: URL) throws {
        guard let url = url(in: folder), let text = try? String(contentsOf: url, encoding: .utf8) else { return }
        _ = try singleGroup(text, path: url.path)
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

extension ListScrollCSV {
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
