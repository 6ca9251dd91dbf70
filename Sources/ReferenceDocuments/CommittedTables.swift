import BenchCore
import Foundation
import Report

/// A small CSV the report quotes (the corpus ranking, the --jobs timings): rows by column name.
package struct CSVRows: Sendable {
    package var rows: [[String: String]]

    package init(rows: [[String: String]]) { self.rows = rows }

    /// nil when the file is absent; throws when it is there but not CSV.
    package static func load(_ url: URL) throws -> CSVRows? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let table = try CSV.parse(String(contentsOf: url, encoding: .utf8)).filter { $0 != [""] }
        guard let header = table.first else { return CSVRows(rows: []) }
        return CSVRows(
            rows: table.dropFirst().map { Dictionary(zip(header, $0), uniquingKeysWith: { first, _ in first }) }
        )
    }
}

/// The example corpus run (results/corpus/corpus-summary.csv, written by `bench corpus`) and the
/// serial-against-parallel timings (results/jobs/timings.csv, scripts/jobs-timing.sh): their values and tables.
package struct CorpusAndJobsFigures: Sendable {
    package var corpus: CSVRows?
    /// Every run of the corpus (results/corpus/corpus.csv), for what the summary does not keep: the floor.
    package var corpusRuns: CSVRows? = nil
    package var timings: CSVRows?
    /// `bench compare` of the serial matrix against the --jobs 2 one (results/jobs/compare-matrix.md).
    package var comparison: String?

    package init(corpus: CSVRows?, timings: CSVRows?, comparison: String?) {
        self.corpus = corpus
        self.timings = timings
        self.comparison = comparison
    }

    package static func load(from results: URL) throws -> CorpusAndJobsFigures {
        var figures = CorpusAndJobsFigures(
            corpus: try CSVRows.load(results.appendingPathComponent("corpus/corpus-summary.csv")),
            timings: try CSVRows.load(results.appendingPathComponent("jobs/timings.csv")),
            comparison: try? String(
                contentsOf: results.appendingPathComponent("jobs/compare-matrix.md"),
                encoding: .utf8
            )
        )
        figures.corpusRuns = try CSVRows.load(results.appendingPathComponent("corpus/corpus.csv"))
        return figures
    }

    /// Per file, the stream renderer's median exact heap peak (glibc malloc, runs that succeeded)
    /// over the file's floor (its output bitmap), for the files whose runs have both.
    package func streamOverFloor() -> [(file: String, ratio: Double)] {
        guard let rows = corpusRuns?.rows else { return [] }
        var heaps: [String: [Double]] = [:]
        var floors: [String: Double] = [:]
        var order: [String] = []
        for row in rows where row["render"] == "stream" && row["allocator"] == "system" && row["status"] == "ok" {
            guard let file = row["file"], let heap = row["peak_heap_exact_delta_bytes"].flatMap(Double.init),
                let floor = row["floor_bytes"].flatMap(Double.init), floor > 0
            else { continue }
            if heaps[file] == nil { order.append(file) }
            heaps[file, default: []].append(heap)
            floors[file] = floor
        }
        return order.compactMap { file in Distribution(heaps[file]!).map { (file, $0.median / floors[file]!) } }
    }

    static func mb(_ text: String?) -> String {
        text.flatMap(Double.init).map { String(format: "%.1f", $0 / 1e6) } ?? "–"
    }
    static func perPixel(_ text: String?) -> String {
        text.flatMap(Double.init).map { String(format: "%.2f", $0) } ?? "–"
    }

    package func values() -> [String: String] {
        var values: [String: String] = [:]
        if let rows = corpus?.rows, let worst = rows.first {
            values["corpus_images"] = String(rows.count)
            values["corpus_photos"] = String(rows.filter { $0["file"]?.hasPrefix("photos/") == true }.count)
            values["corpus_generated"] = String(rows.filter { $0["file"]?.hasPrefix("generated/") == true }.count)
            values["corpus_worst_file"] = worst["file"] ?? ""
            values["corpus_worst_encoding"] = worst["encoding"] ?? ""
            values["corpus_worst_size"] = "\(worst["width"] ?? "?") x \(worst["height"] ?? "?")"
            values["corpus_worst_full_bpp"] = Self.perPixel(worst["full_bytes_per_pixel"])
            // The real photographs' worst (the generated images include formats photographs rarely ship in).
            if let photo = rows.first(where: { $0["file"]?.hasPrefix("photos/") == true }) {
                values["corpus_worst_photo_file"] = photo["file"] ?? ""
                values["corpus_worst_photo_encoding"] = photo["encoding"] ?? ""
                values["corpus_worst_photo_size"] = "\(photo["width"] ?? "?") x \(photo["height"] ?? "?")"
                values["corpus_worst_photo_full_mb"] = Self.mb(photo["full_median_peak_rss_delta_bytes"])
                values["corpus_worst_photo_full_bpp"] = Self.perPixel(photo["full_bytes_per_pixel"])
                values["corpus_worst_photo_thumbnail_bpp"] = Self.perPixel(photo["thumbnail_bytes_per_pixel"])
            }
            if let best = rows.last {
                values["corpus_best_file"] = best["file"] ?? ""
                values["corpus_best_full_bpp"] = Self.perPixel(best["full_bytes_per_pixel"])
            }
            let thumbnails = rows.compactMap { row in
                row["thumbnail_bytes_per_pixel"].flatMap(Double.init).map { (row, $0) }
            }
            if let worstThumbnail = thumbnails.max(by: { $0.1 < $1.1 }) {
                values["corpus_worst_thumbnail_file"] = worstThumbnail.0["file"] ?? ""
                values["corpus_worst_thumbnail_file_bpp"] = String(format: "%.2f", worstThumbnail.1)
            }
        }
        // The stream renderer on the real photographs: its heap peak over each one's floor.
        let photos = streamOverFloor().filter { $0.file.hasPrefix("photos/") }
        if let worst = photos.max(by: { $0.ratio < $1.ratio }), let best = photos.min(by: { $0.ratio < $1.ratio }) {
            values["corpus_stream_photos"] = String(photos.count)
            values["corpus_stream_photo_over_floor_max"] = String(format: "%.2f", worst.ratio)
            values["corpus_stream_photo_over_floor_max_file"] = worst.file
            values["corpus_stream_photo_over_floor_min"] = String(format: "%.2f", best.ratio)
        }
        for (workload, jobs, median, low, high, count) in timingSummary() {
            let key = "jobs_\(workload)_j\(jobs)"
            values[key + "_s"] = String(format: "%.0f", median)
            values[key + "_min_s"] = String(format: "%.0f", low)
            values[key + "_max_s"] = String(format: "%.0f", high)
            values[key + "_repeats"] = String(count)
        }
        for workload in Set(timingSummary().map(\.workload)) {
            let serial = timingSummary().first { $0.workload == workload && $0.jobs == 1 }
            let parallel = timingSummary().first { $0.workload == workload && $0.jobs == 2 }
            if let serial, let parallel, parallel.median > 0 {
                values["jobs_\(workload)_speedup"] = String(format: "%.2f", serial.median / parallel.median)
            }
        }
        return values
    }

    /// Per workload and jobs: median, min and max wall time over the repeats that exited 0 or 3.
    func timingSummary() -> [(workload: String, jobs: Int, median: Double, min: Double, max: Double, count: Int)] {
        guard let rows = timings?.rows else { return [] }
        var grouped: [String: [Int: [Double]]] = [:]
        var order: [String] = []
        for row in rows where ["0", "3"].contains(row["status"] ?? "") {
            guard let workload = row["workload"], let jobs = row["jobs"].flatMap(Int.init),
                let wall = row["wall_s"].flatMap(Double.init)
            else { continue }
            if grouped[workload] == nil { order.append(workload) }
            grouped[workload, default: [:]][jobs, default: []].append(wall)
        }
        return order.flatMap { workload in
            grouped[workload]!.keys.sorted().compactMap { jobs in
                Distribution(grouped[workload]![jobs]!).map { (workload, jobs, $0.median, $0.min, $0.max, $0.count) }
            }
        }
    }

    package func blocks() -> [String: String] {
        ["corpus": corpusTable(), "jobs-timing": timingTable(), "jobs-compare": comparisonSummary()]
    }

    /// bench compare's verdict and the rows that are not plainly ok; the whole output is in jobs/compare-matrix.md.
    func comparisonSummary() -> String {
        guard let comparison else { return "No comparison: run `bench-reference measure jobs`.\n" }
        let lines = comparison.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let table = lines.filter {
            $0.hasPrefix("| cell") || $0.hasPrefix("| ---") || ($0.hasPrefix("| ") && !$0.hasSuffix("| ok |"))
        }
        let verdict = lines.filter { $0.contains(" cells: ") || $0.hasPrefix("verdict:") }
        return "Medians in MB over the baseline, serial run as the baseline, `--jobs 2` as the current run; the cells "
            + "that are not plainly ok (every row: [jobs/compare-matrix.md](jobs/compare-matrix.md)).\n\n"
            + table.joined(separator: "\n") + "\n\n" + verdict.map { "`\($0)`" }.joined(separator: " · ") + "\n"
    }

    func corpusTable() -> String {
        guard let rows = corpus?.rows, !rows.isEmpty else {
            return "No corpus run: run `bench-reference measure corpus`.\n"
        }
        // The stream renderer's columns when the run measured it (runs before it have none).
        let hasStream = rows.contains { $0["stream_median_peak_rss_delta_bytes"] != nil }
        let table = rows.map { row in
            [
                row["rank"] ?? "", row["file"] ?? "", row["encoding"] ?? "",
                "\(row["width"] ?? "?")x\(row["height"] ?? "?")",
                Self.mb(row["payload_bytes"]), Self.mb(row["full_median_peak_rss_delta_bytes"]),
                Self.perPixel(row["full_bytes_per_pixel"]),
                Self.mb(row["thumbnail_median_peak_rss_delta_bytes"]), Self.perPixel(row["thumbnail_bytes_per_pixel"]),
            ]
                + (hasStream
                    ? [
                        Self.mb(row["stream_median_peak_rss_delta_bytes"]),
                        Self.perPixel(row["stream_bytes_per_pixel"]),
                    ] : [])
        }
        let header =
            [
                "rank", "file", "encoding", "size", "file (MB)", "full (MB)", "full B/px", "thumbnail (MB)",
                "thumbnail B/px",
            ]
            + (hasStream ? ["stream (MB)", "stream B/px"] : [])
        return
            "Peak RSS over baseline (median of runs, download task, glibc malloc) and the same per pixel of the image, costliest per pixel first.\n\n"
            + MarkdownTable.render(header: header, rows: table, leftAligned: 4)
    }

    func timingTable() -> String {
        let summary = timingSummary()
        guard !summary.isEmpty else { return "No timings: run `make reference`.\n" }
        let rows = summary.map { entry in
            [
                entry.workload, String(entry.jobs), String(format: "%.0f", entry.median),
                String(format: "%.0f–%.0f", entry.min, entry.max), String(entry.count),
            ]
        }
        return MarkdownTable.render(
            header: ["workload", "--jobs", "wall time (s, median)", "range (s)", "repeats"],
            rows: rows,
            leftAligned: 1
        )
    }
}
