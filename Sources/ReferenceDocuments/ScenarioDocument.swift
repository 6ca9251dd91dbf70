import Foundation
import Report
import Scenarios

/// results/SCENARIO.md's generated parts (`<!-- table:NAME -->` blocks and `<!-- value:NAME -->`
/// figures), computed from the committed list-scroll CSVs by `bench report --results results`:
/// the caps (list-scroll.csv), the memory budgets, the faults and the scroll speeds (list-scroll-*.csv).
/// A file that is absent contributes nothing; a marker that needs it then fails as unknown.
///
/// Values come in families, one member per cell, with the cell in the name:
/// `scenario_download_thumbnail_cap4_peak_mb`, `scenario_fault_truncate_retries2_sent_mb`,
/// `scenario_mem100_data_full_status`, `scenario_speed5_data_peak_mb`; and a few aggregates
/// (ranges over the caps, the speed that wasted most).
package struct ScenarioDocument: Sendable {
    /// The CSVs a folder may hold, by file name.
    package static let caps = ListScrollCSV.fileName
    package static let memoryLimit = "list-scroll-memory-limit.csv"
    package static let faults = "list-scroll-faults.csv"
    package static let speed = "list-scroll-speed.csv"
    package static let files = [caps, memoryLimit, faults, speed]

    package private(set) var blocks: [String: String] = [:]
    package private(set) var values: [String: String] = [:]

    /// From CSV texts by file name (`files`); names missing from `csvs` are skipped. Errors name a
    /// file by its name in `folder` when one is given.
    package init(csvs: [String: String], folder: URL? = nil) throws {
        func path(_ name: String) -> String {
            guard let folder else { return name }
            return (ListScrollCSV.url(of: name, in: folder) ?? folder.appendingPathComponent(name)).path
        }
        if let text = csvs[Self.caps] {
            blocks["scenario-peaks"] = try ListScrollCSV.peakTables(text, path: path(Self.caps))
            addCaps(try ListScrollRows(text, path: path(Self.caps)))
        }
        if let text = csvs[Self.memoryLimit] {
            addMemoryLimit(try ListScrollRows(text, path: path(Self.memoryLimit), varying: ["memory_limit_bytes"]))
        }
        if let text = csvs[Self.faults] {
            addFaults(try ListScrollRows(text, path: path(Self.faults), varying: ["fault", "fault_every", "retries"]))
        }
        if let text = csvs[Self.speed] {
            addSpeed(try ListScrollRows(text, path: path(Self.speed), varying: ["rows_per_second"]))
        }
    }

    /// From the CSVs present in `folder`.
    package init(folder: URL) throws {
        var csvs: [String: String] = [:]
        for name in Self.files {
            // A folder of the previous format holds them under their old names (scenario*.csv).
            if let url = ListScrollCSV.url(of: name, in: folder),
                let text = try? String(contentsOf: url, encoding: .utf8)
            {
                csvs[name] = text
            }
        }
        try self.init(csvs: csvs, folder: folder)
    }

    // MARK: Formatting

    static func mb(_ bytes: Double) -> Double { bytes / 1e6 }
    static func f0(_ value: Double) -> String { String(format: "%.0f", value) }
    static func f1(_ value: Double) -> String { String(format: "%.1f", value) }
    /// "a–b" of the smallest and largest of `values` as `format` writes them; one number when they read the same.
    static func range(_ values: [Double], _ format: (Double) -> String = f0) -> String {
        guard let low = values.min(), let high = values.max() else { return "–" }
        let (a, b) = (format(low), format(high))
        return a == b ? a : "\(a)–\(b)"
    }
    static func cell(_ value: Double?, _ format: (Double) -> String = f1) -> String { value.map(format) ?? "–" }
    /// A CSV cell as written, "–" when empty (not measured).
    static func cell(_ row: [String: String], _ column: String) -> String {
        row[column].flatMap { $0.isEmpty ? nil : $0 } ?? "–"
    }
    /// A name part from a CSV value: "status-503" → "status_503", "5.0" → "5".
    static func namePart(_ value: String) -> String {
        if let number = Double(value), number == number.rounded() { return String(Int(number)) }
        return value.replacingOccurrences(of: "-", with: "_").replacingOccurrences(of: ".", with: "_")
    }
    static func settingsLine(_ rows: ListScrollRows, runIDs: [String]) -> String {
        let settings = rows.sharedSettings.map { "\($0.column) \($0.value.isEmpty ? "none" : $0.value)" }.joined(
            separator: ", "
        )
        return "Settings: \(settings); runs: \(runIDs.isEmpty ? "not recorded" : runIDs.joined(separator: ", "))."
    }
    static func runIDs(_ rows: ListScrollRows) -> [String] { rows.ordered("run_id") }
    /// A failed row's reason, short: the signal of a crash report ("signal 4 (Illegal instruction)"),
    /// else its first clause.
    static func shortError(_ error: String) -> String {
        if let signal = error.range(of: #"signal \d+ \([^)]*\)"#, options: .regularExpression) {
            return String(error[signal])
        }
        return (error.split(separator: ":", maxSplits: 1).first.map(String.init) ?? "").trimmingCharacters(
            in: .whitespaces
        )
    }
    /// A child that ended without a report: `crashed`, as a trial's row says; files measured before
    /// scenario rows shared the trials' statuses say `killed` (by a signal) or `failed` (an exit).
    static func endedWithoutReport(_ status: String?) -> Bool {
        ["crashed", "killed", "failed"].contains(status ?? "")
    }

    static func status(_ row: [String: String]) -> String {
        let status = row["status"] ?? ""
        guard status != "ok", let error = row["error"], !error.isEmpty else { return status }
        return "\(status): \(shortError(error))"
    }
}

// MARK: The caps (list-scroll.csv)

extension ScenarioDocument {
    /// The cell SCENARIO.md's recommendation is about: the requests table shows it alone.
    static let recommended = (strategy: "download", render: "thumbnail")

    mutating func addCaps(_ file: ListScrollRows) {
        let ok = file.rows.filter { $0["status"] == "ok" }
        let strategies = file.ordered("strategy", in: ok)
        let renders = file.ordered("render", in: ok)
        let columns = renders.flatMap { render in strategies.map { (strategy: $0, render: render) } }
        let caps = file.ordered("max_concurrent", in: ok).sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }
        func rows(_ strategy: String, _ render: String, _ cap: String) -> [[String: String]] {
            ok.filter { $0["strategy"] == strategy && $0["render"] == render && $0["max_concurrent"] == cap }
        }
        func median(_ column: String, _ strategy: String, _ render: String, _ cap: String, scale: Double = 1) -> Double?
        {
            ListScrollRows.median(ListScrollRows.numbers(column, of: rows(strategy, render, cap)).map { $0 * scale })
        }
        func peak(_ strategy: String, _ render: String, _ cap: String) -> Double? {
            ListScrollRows.median(ListScrollRows.peakOverBaselineMB(rows(strategy, render, cap)))
        }

        // Per cell: peak, time to image, traffic and requests (medians of the runs).
        for column in columns {
            var peaks: [Double] = []
            for cap in caps {
                let name = "scenario_\(column.strategy)_\(column.render)_cap\(cap)_"
                if let value = peak(column.strategy, column.render, cap) {
                    values[name + "peak_mb"] = Self.f1(value)
                    peaks.append(value)
                }
                for (column:csvColumn, suffix:suffix, scale:scale) in [
                    ("time_to_image_median_ms", "tti_median_ms", 1.0), ("time_to_image_max_ms", "tti_max_ms", 1.0),
                    ("bytes_sent", "sent_mb", 1e-6), ("bytes_wasted", "wasted_mb", 1e-6),
                    ("requests_started", "started", 1.0), ("requests_completed", "completed", 1.0),
                    ("requests_cancelled", "cancelled", 1.0),
                ] {
                    if let value = median(csvColumn, column.strategy, column.render, cap, scale: scale) {
                        values[name + suffix] = Self.f0(value)
                    }
                }
            }
            values["scenario_\(column.strategy)_\(column.render)_peak_range_mb"] = Self.range(peaks)
        }
        // What download saves against data, per renderer and cap (data's median peak minus download's).
        for render in renders {
            for cap in caps {
                if let data = peak("data", render, cap), let download = peak("download", render, cap) {
                    values["scenario_saving_\(render)_cap\(cap)_mb"] = Self.f0(data - download)
                }
            }
        }
        // Full decodes: their medians at any cap, and what the largest cap adds to the smallest's.
        let full = columns.filter { $0.render == "full" }
        values["scenario_full_peak_range_mb"] = Self.range(
            full.flatMap { column in caps.compactMap { peak(column.strategy, "full", $0) } }
        )
        if let smallest = caps.first, let largest = caps.last {
            values["scenario_full_cap_added_range_mb"] = Self.range(
                full.compactMap { column in
                    guard let low = peak(column.strategy, "full", smallest),
                        let high = peak(column.strategy, "full", largest)
                    else { return nil }
                    return high - low
                }
            )
        }
        // The rows' bytes, and the largest bitmap a full decode keeps (4 bytes a pixel of the largest size).
        if let payload = ListScrollRows.median(ListScrollRows.numbers("payload_bytes_all_rows", of: file.rows)) {
            values["scenario_payload_all_rows_mb"] = Self.f0(Self.mb(payload))
        }
        let sizes = file.sharedSettings.first { $0.column == "sizes" }?.value ?? ""
        let pixels = ListScrollCSV.fixtureSizes(sizes).map { Double($0.width * $0.height) }
        values["scenario_largest_bitmap_mb"] = pixels.max().map { Self.f0(Self.mb($0 * 4)) } ?? "–"
        // The floor of each renderer's scroll: the rows on screen's bitmaps (ScrollFloor), from the rows' settings.
        for render in renders {
            guard let row = ok.first(where: { $0["render"] == render }), let floor = ScrollFloor.bytes(row: row) else {
                continue
            }
            values["scenario_floor_\(render)_mb"] = Self.f1(Self.mb(Double(floor)))
        }

        let settings = Self.settingsLine(file, runIDs: Self.runIDs(file))
        var time = [
            settings, "",
            "| max concurrent | " + columns.map { "\($0.strategy), \($0.render)" }.joined(separator: " | ") + " |",
            "|---|" + columns.map { _ in "---|" }.joined(),
        ]
        for cap in caps {
            time.append(
                "| \(cap) | "
                    + columns.map { column in
                        guard let typical = median("time_to_image_median_ms", column.strategy, column.render, cap),
                            let longest = median("time_to_image_max_ms", column.strategy, column.render, cap)
                        else { return "–" }
                        return "\(Self.f0(typical)) / \(Self.f0(longest))"
                    }.joined(separator: " | ") + " |"
            )
        }
        blocks["scenario-time-to-image"] = time.joined(separator: "\n") + "\n"

        let (strategy, render) = Self.recommended
        var requests = [
            settings, "",
            "| max concurrent | requests started / completed / cancelled | sent (MB) | wasted on cancelled (MB) |",
            "|---|---|---|---|",
        ]
        for cap in caps where !rows(strategy, render, cap).isEmpty {
            let counts = ["requests_started", "requests_completed", "requests_cancelled"].map {
                Self.cell(median($0, strategy, render, cap), Self.f0)
            }
            requests.append(
                "| \(cap) | \(counts.joined(separator: " / ")) | \(Self.cell(median("bytes_sent", strategy, render, cap, scale: 1e-6))) | "
                    + "\(Self.cell(median("bytes_wasted", strategy, render, cap, scale: 1e-6))) |"
            )
        }
        blocks["scenario-requests"] = requests.joined(separator: "\n") + "\n"
    }
}

// MARK: Memory budgets, faults, speeds (list-scroll-*.csv)

extension ScenarioDocument {
    mutating func addMemoryLimit(_ file: ListScrollRows) {
        func limit(_ row: [String: String]) -> Double { row["memory_limit_bytes"].flatMap(Double.init) ?? .infinity }
        let ordered = file.rows.enumerated().sorted { (limit($0.element), $0.offset) < (limit($1.element), $1.offset) }
            .map(\.element)
        var table = [
            Self.settingsLine(file, runIDs: Self.runIDs(file)), "",
            "| memory limit (MiB) | strategy, render | status | peak RSS over baseline (MB) | rows shown / entered | rows with a placeholder |",
            "|---|---|---|---|---|---|",
        ]
        for row in ordered {
            let mib = limit(row).isFinite ? Self.f0(limit(row) / 1_048_576) : "none"
            let (strategy, render) = (row["strategy"] ?? "", row["render"] ?? "")
            // A killed child left no baseline: the last peak RSS it recorded is all there is (none: "–").
            let baseline = row["baseline_rss_bytes"].flatMap(Double.init) ?? 0
            let peakBytes = row["peak_rss_bytes"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }
            let peak =
                baseline > 0
                ? Self.cell(peakBytes.map { Self.mb($0 - baseline) })
                : peakBytes.map { "\(Self.f1(Self.mb($0))) (its last recorded peak RSS; no baseline)" } ?? "–"
            let name = "scenario_mem\(mib)_\(strategy)_\(render)_"
            values[name + "status"] = row["status"] ?? ""
            values[name + "peak_mb"] = Self.cell(peakBytes.map { Self.mb(baseline > 0 ? $0 - baseline : $0) }, Self.f0)
            values[name + "placeholders"] = Self.cell(row, "rows_fallback")
            table.append(
                "| \(mib) | \(strategy), \(render) | \(Self.status(row)) | \(peak) | \(Self.cell(row, "rows_shown")) / \(Self.cell(row, "rows_entered")) | \(Self.cell(row, "rows_fallback")) |"
            )
        }
        // Per limit: how many children were killed, how many rows showed a placeholder in all.
        let limits = ordered.map(limit).reduce(into: [Double]()) { if !$0.contains($1) { $0.append($1) } }
        for value in limits {
            let rows = ordered.filter { limit($0) == value }
            let name = "scenario_mem\(value.isFinite ? Self.f0(value / 1_048_576) : "none")_"
            values[name + "killed"] = String(rows.filter { Self.endedWithoutReport($0["status"]) }.count)
            values[name + "placeholders"] = Self.f0(ListScrollRows.numbers("rows_fallback", of: rows).reduce(0, +))
        }
        if let smallest = limits.first(where: \.isFinite), let largest = limits.last(where: \.isFinite) {
            values["scenario_memory_limit_smallest_mib"] = Self.f0(smallest / 1_048_576)
            values["scenario_memory_limit_largest_mib"] = Self.f0(largest / 1_048_576)
        }
        blocks["scenario-memory-limit"] = table.joined(separator: "\n") + "\n"
    }

    mutating func addFaults(_ file: ListScrollRows) {
        var table = [
            Self.settingsLine(file, runIDs: Self.runIDs(file)), "",
            "| fault | retries | status | sent (MB) | requests started / completed / cancelled / failed | retried | rows with a placeholder "
                + "| peak heap over baseline (MB) | duration (s) | partial files removed | files left |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        // nil: an empty cell, not measured (the child left no report).
        func number(_ row: [String: String], _ column: String) -> Double? { row[column].flatMap(Double.init) }
        let faults = file.ordered("fault")
        for fault in faults {
            for row in file.rows.filter({ $0["fault"] == fault }).sorted(by: {
                number($0, "retries") ?? 0 < number($1, "retries") ?? 0
            }) {
                let heap = number(row, "peak_heap_bytes").flatMap { peak in
                    number(row, "baseline_heap_bytes").map { Self.mb(peak - $0) }
                }
                let every = row["fault_every"].flatMap { $0.isEmpty ? nil : " every \($0)" } ?? ""
                let requests = ["requests_started", "requests_completed", "requests_cancelled", "requests_failed"].map {
                    Self.cell(row, $0)
                }
                table.append(
                    "| \(fault)\(every) | \(row["retries"] ?? "") | \(Self.status(row)) | \(Self.cell(number(row, "bytes_sent").map(Self.mb))) | "
                        + "\(requests.joined(separator: " / ")) | \(Self.cell(row, "requests_retried")) | \(Self.cell(row, "rows_fallback")) | "
                        + "\(Self.cell(heap)) | \(Self.cell(number(row, "duration_s"))) | \(Self.cell(row, "orphaned_files_removed")) | \(row["leftover_files"] ?? "") |"
                )
                let name = "scenario_fault_\(Self.namePart(fault))_retries\(row["retries"] ?? "")_"
                values[name + "sent_mb"] = Self.cell(number(row, "bytes_sent").map(Self.mb), Self.f0)
                values[name + "duration_s"] = Self.cell(number(row, "duration_s"))
                values[name + "retried"] = Self.cell(row, "requests_retried")
                values[name + "placeholders"] = Self.cell(row, "rows_fallback")
                values[name + "heap_mb"] = Self.cell(heap)
            }
        }
        values["scenario_faults_orphans_range"] = Self.range(
            ListScrollRows.numbers("orphaned_files_removed", of: file.rows)
        )
        values["scenario_faults_leftover_max"] = Self.f0(
            ListScrollRows.numbers("leftover_files", of: file.rows).max() ?? 0
        )
        blocks["scenario-faults"] = table.joined(separator: "\n") + "\n"
    }

    mutating func addSpeed(_ file: ListScrollRows) {
        func speed(_ value: String) -> Double { Double(value) ?? 0 }
        let speeds = file.ordered("rows_per_second").sorted { speed($0) < speed($1) }
        let strategies = file.ordered("strategy")
        var table = [
            Self.settingsLine(file, runIDs: Self.runIDs(file)), "",
            "| rows a second | strategy | peak RSS over baseline (MB) | sent (MB) | wasted on cancelled (MB) "
                + "| requests started / completed / cancelled | time to image, median / max (ms) |",
            "|---|---|---|---|---|---|---|",
        ]
        var wastedBySpeed: [(speed: String, wasted: Double)] = []
        for rps in speeds {
            for strategy in strategies {
                let rows = file.matching(["rows_per_second": rps, "strategy": strategy]).filter { $0["status"] == "ok" }
                guard !rows.isEmpty else { continue }
                func median(_ column: String, scale: Double = 1) -> Double? {
                    ListScrollRows.median(ListScrollRows.numbers(column, of: rows).map { $0 * scale })
                }
                let peak = ListScrollRows.median(ListScrollRows.peakOverBaselineMB(rows))
                let counts = ["requests_started", "requests_completed", "requests_cancelled"].map {
                    Self.cell(median($0), Self.f0)
                }
                let label = Self.namePart(rps)
                table.append(
                    "| \(label) | \(strategy) | \(Self.cell(peak)) | \(Self.cell(median("bytes_sent", scale: 1e-6))) | "
                        + "\(Self.cell(median("bytes_wasted", scale: 1e-6))) | \(counts.joined(separator: " / ")) | "
                        + "\(Self.cell(median("time_to_image_median_ms"), Self.f0)) / \(Self.cell(median("time_to_image_max_ms"), Self.f0)) |"
                )
                let name = "scenario_speed\(label)_\(strategy)_"
                values[name + "peak_mb"] = Self.cell(peak, Self.f0)
                values[name + "sent_mb"] = Self.cell(median("bytes_sent", scale: 1e-6), Self.f0)
                values[name + "wasted_mb"] = Self.cell(median("bytes_wasted", scale: 1e-6), Self.f0)
                values[name + "cancelled"] = Self.cell(median("requests_cancelled"), Self.f0)
                if let wasted = median("bytes_wasted") { wastedBySpeed.append((rps, wasted)) }
            }
        }
        if let most = wastedBySpeed.max(by: { $0.wasted < $1.wasted }) {
            values["scenario_speed_most_wasted_rps"] = Self.namePart(most.speed)
        }
        if let slowest = speeds.first, let fastest = speeds.last {
            values["scenario_speed_slowest_rps"] = Self.namePart(slowest)
            values["scenario_speed_fastest_rps"] = Self.namePart(fastest)
        }
        blocks["scenario-speed"] = table.joined(separator: "\n") + "\n"
    }
}
