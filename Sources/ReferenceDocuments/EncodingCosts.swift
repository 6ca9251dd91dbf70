import BenchCore
import Foundation
import Report

/// encodings.csv (scripts/encodings.py): the same picture in every encoding, our full, thumbnail
/// and stream decodes under both allocators and vipsthumbnail beside them, one row per run.
/// Turns it into REPORT.md's "What the encoding costs" table, the values its prose quotes
/// and the chart's data.
package struct EncodingCosts: Sendable {
    package struct Row: Sendable, Equatable {
        package var encoding: String
        /// "ours" or "vipsthumbnail".
        package var tool: String
        package var render: String
        package var allocator: String
        package var run: Int
        package var payloadBytes: Int?
        package var imagePixels: Int
        package var peakRSSDelta: Int?
        package var peakHeapDelta: Int?
        /// The output bitmap's pixels (output_width x output_height), when the file has them.
        package var outputPixels: Int?
        /// The child's decode time (render_seconds), when the file has it.
        package var renderSeconds: Double?
        package var ok: Bool
        /// vipsthumbnail's `--vips-version` ("libvips 8.14.1-..."), empty for ours.
        package var toolVersion: String = ""
    }

    package var rows: [Row]
    package static let fileName = "encodings.csv"

    package static func parse(_ text: String) throws -> EncodingCosts {
        let table = try CSV.parse(text).filter { $0 != [""] }
        guard let header = table.first else { throw CSVError("\(fileName) is empty") }
        if let twice = header.enumerated().first(where: { header[..<$0.offset].contains($0.element) })?.element {
            throw CSVError("\(fileName) names the column '\(twice)' twice")
        }
        let required = [
            "encoding", "tool", "render", "allocator", "run", "payload_bytes", "image_width", "image_height",
            "peak_rss_delta_bytes", "peak_heap_delta_bytes", "status",
        ]
        let missing = required.filter { !header.contains($0) }
        guard missing.isEmpty else {
            throw CSVError("\(fileName) lacks the columns \(missing.joined(separator: ", "))")
        }
        let rows = try table.dropFirst().enumerated().map { index, fields -> Row in
            guard fields.count == header.count else {
                throw CSVError("\(fileName) line \(index + 2) has \(fields.count) fields, the header \(header.count)")
            }
            let field = Dictionary(uniqueKeysWithValues: zip(header, fields))
            guard let run = Int(field["run"]!), let width = Int(field["image_width"]!),
                let height = Int(field["image_height"]!)
            else {
                throw CSVError("\(fileName) line \(index + 2): run, image_width and image_height must be integers")
            }
            let pixels = width.multipliedReportingOverflow(by: height)
            guard width > 0, height > 0, !pixels.overflow else {
                throw CSVError("\(fileName) line \(index + 2): an image of \(width)x\(height) pixels is impossible")
            }
            let output = Int(field["output_width"] ?? "").flatMap { width in
                Int(field["output_height"] ?? "").map { width.multipliedReportingOverflow(by: $0) }
            }
            return Row(
                encoding: field["encoding"]!,
                tool: field["tool"]!,
                render: field["render"]!,
                allocator: field["allocator"]!,
                run: run,
                payloadBytes: Int(field["payload_bytes"]!),
                imagePixels: pixels.partialValue,
                peakRSSDelta: Int(field["peak_rss_delta_bytes"]!),
                peakHeapDelta: Int(field["peak_heap_delta_bytes"]!),
                outputPixels: output.flatMap { $0.overflow ? nil : $0.partialValue },
                renderSeconds: Double(field["render_seconds"] ?? ""),
                ok: field["status"] == "ok",
                toolVersion: field["tool_version"] ?? ""
            )
        }
        guard !rows.isEmpty else { throw CSVError("\(fileName) has no rows") }
        return EncodingCosts(rows: rows)
    }

    /// Encodings in the order they were measured.
    package var encodings: [String] {
        var seen: [String] = []
        for row in rows where !seen.contains(row.encoding) { seen.append(row.encoding) }
        return seen
    }

    package func runs(_ encoding: String, tool: String = "ours", render: String, allocator: String = "system") -> [Row]
    {
        rows.filter {
            $0.encoding == encoding && $0.tool == tool && $0.render == render && $0.allocator == allocator && $0.ok
        }
    }

    package func rss(
        _ encoding: String,
        tool: String = "ours",
        render: String,
        allocator: String = "system"
    ) -> Distribution? {
        Distribution(
            runs(encoding, tool: tool, render: render, allocator: allocator).compactMap(\.peakRSSDelta).map(Double.init)
        )
    }

    package func heap(_ encoding: String, render: String, allocator: String = "system") -> Distribution? {
        Distribution(runs(encoding, render: render, allocator: allocator).compactMap(\.peakHeapDelta).map(Double.init))
    }

    package func pixels(_ encoding: String) -> Int { rows.first { $0.encoding == encoding }?.imagePixels ?? 0 }

    /// Median decode time of our system-allocator runs.
    func seconds(_ encoding: String, render: String) -> Distribution? {
        Distribution(runs(encoding, render: render).compactMap(\.renderSeconds))
    }

    /// The stream renderer's output bitmap in bytes (4 a pixel).
    package func streamBitmap(_ encoding: String) -> Int? {
        runs(encoding, render: "stream").compactMap(\.outputPixels).first.map { $0 * 4 }
    }

    /// The stream renderer's target: its exact heap peak at most this many times its output bitmap.
    package static let streamTarget = 1.5

    /// The stream renderer's median exact heap peak (system allocator) over its output bitmap.
    func streamOverBitmap(_ encoding: String) -> Double? {
        guard let heap = heap(encoding, render: "stream")?.median, let bitmap = streamBitmap(encoding), bitmap > 0
        else { return nil }
        return heap / Double(bitmap)
    }

    /// Whether the file has stream rows (files measured before the stream renderer have none).
    var hasStream: Bool { rows.contains { $0.render == "stream" } }

    /// Our cheapest path (the thumbnail, either allocator) against vipsthumbnail, medians of peak RSS.
    func oursAgainstPeer(_ encoding: String) -> (ours: Double, peer: Double)? {
        guard let peer = rss(encoding, tool: "vipsthumbnail", render: "thumbnail")?.median,
            let ours = ["system", "jemalloc"].compactMap({ rss(encoding, render: "thumbnail", allocator: $0)?.median })
                .min()
        else { return nil }
        return (ours, peer)
    }

    // MARK: Report

    private func mb(_ value: Double?) -> String { value.map { String(format: "%.1f", $0 / 1e6) } ?? "-" }
    private func range(_ value: Distribution?) -> String {
        value.map { String(format: "%.1f (%.1f-%.1f)", $0.median / 1e6, $0.min / 1e6, $0.max / 1e6) } ?? "-"
    }
    private func perPixel(_ value: Distribution?, _ encoding: String) -> String {
        guard let value, pixels(encoding) > 0 else { return "-" }
        return String(format: "%.2f", value.median / Double(pixels(encoding)))
    }

    private func time(_ value: Distribution?) -> String { value.map { String(format: "%.2f", $0.median) } ?? "-" }

    /// One row per encoding: payload, full and thumbnail peaks (RSS median with min-max, jemalloc's
    /// median, exact heap median and heap bytes per source pixel), then, when measured, the stream
    /// renderer's (RSS, exact heap, its output bitmap, decode time beside the thumbnail's), and
    /// vipsthumbnail's RSS.
    package func table() -> String {
        let streamHeader =
            hasStream
            ? [
                "stream RSS MB", "stream heap MB", "stream bitmap MB", "stream decode s",
                "thumbnail decode s",
            ] : []
        let header =
            [
                "encoding", "payload MB", "full RSS MB", "full jemalloc", "full heap MB", "full heap B/px",
                "thumbnail RSS MB", "thumbnail jemalloc", "thumbnail heap MB", "thumbnail heap B/px",
            ]
            + streamHeader + ["vipsthumbnail RSS MB", "ours vs vips"]
        let body = encodings.map { encoding -> [String] in
            let payload = rows.first { $0.encoding == encoding && $0.payloadBytes != nil }?.payloadBytes
            let comparison = oursAgainstPeer(encoding).map { String(format: "%.2fx", $0.ours / $0.peer) } ?? "-"
            let stream =
                !hasStream
                ? []
                : [
                    range(rss(encoding, render: "stream")), mb(heap(encoding, render: "stream")?.median),
                    mb(streamBitmap(encoding).map(Double.init)),
                    time(seconds(encoding, render: "stream")),
                    time(seconds(encoding, render: "thumbnail")),
                ]
            return [
                encoding, mb(payload.map(Double.init)),
                range(rss(encoding, render: "full")), mb(rss(encoding, render: "full", allocator: "jemalloc")?.median),
                mb(heap(encoding, render: "full")?.median), perPixel(heap(encoding, render: "full"), encoding),
                range(rss(encoding, render: "thumbnail")),
                mb(rss(encoding, render: "thumbnail", allocator: "jemalloc")?.median),
                mb(heap(encoding, render: "thumbnail")?.median),
                perPixel(heap(encoding, render: "thumbnail"), encoding),
            ]
                + stream + [range(rss(encoding, tool: "vipsthumbnail", render: "thumbnail")), comparison]
        }
        return MarkdownTable.render(header: header, rows: body, leftAligned: 1)
    }

    /// `enc_<encoding>_<full|thumbnail|vips>_mb` and `_bpp`, with dashes as underscores, and the tallies.
    package func values() -> [String: String] {
        var values: [String: String] = [:]
        for encoding in encodings {
            let key = "enc_" + encoding.replacingOccurrences(of: "-", with: "_")
            for render in ["full", "thumbnail"] {
                values["\(key)_\(render)_mb"] = mb(rss(encoding, render: render)?.median)
                values["\(key)_\(render)_bpp"] = perPixel(heap(encoding, render: render), encoding)
            }
            values["\(key)_vips_mb"] = mb(rss(encoding, tool: "vipsthumbnail", render: "thumbnail")?.median)
            if hasStream {
                values["\(key)_stream_mb"] = mb(rss(encoding, render: "stream")?.median)
                values["\(key)_stream_heap_mb"] = mb(heap(encoding, render: "stream")?.median)
                values["\(key)_stream_over_bitmap"] =
                    streamOverBitmap(encoding).map { String(format: "%.2f", $0) } ?? "-"
            }
        }
        if hasStream {
            let measured = encodings.compactMap { encoding in streamOverBitmap(encoding).map { (encoding, $0) } }
            let within = measured.filter { $0.1 <= Self.streamTarget }.map(\.0)
            let over = measured.filter { $0.1 > Self.streamTarget }.map(\.0)
            values["stream_target"] = String(format: "%.1f", Self.streamTarget)
            values["stream_within_target_count"] = String(within.count)
            values["stream_within_target"] = within.isEmpty ? "none" : within.joined(separator: ", ")
            values["stream_over_target"] = over.isEmpty ? "none" : over.joined(separator: ", ")
            values["stream_bitmap_mb"] = mb(encodings.compactMap(streamBitmap).max().map(Double.init))
        }
        let compared = encodings.compactMap { encoding in oursAgainstPeer(encoding).map { (encoding, $0) } }
        let above = compared.filter { $0.1.ours > $0.1.peer }.map(\.0)
        values["encodings_count"] = String(encodings.count)
        // "libvips 8.14.1" -> "8.14.1"
        let version = rows.first { !$0.toolVersion.isEmpty }?.toolVersion.split(separator: " ").dropFirst().first
        values["vips_version"] = version.map { String($0.split(separator: "-").first ?? $0) } ?? "-"
        values["encodings_at_or_below_vips"] = String(compared.count - above.count)
        values["encodings_above_vips"] = above.isEmpty ? "none" : above.joined(separator: ", ")
        values["encodings_runs"] = String(rows.filter { $0.tool == "ours" }.map(\.run).max() ?? 0)
        values["encodings_failed_runs"] = String(rows.filter { !$0.ok }.count)
        let spreads = encodings.flatMap { encoding in
            ["full", "thumbnail"].compactMap { rss(encoding, render: $0) }.map { $0.max - $0.min }
        }
        values["encodings_max_spread_mb"] = mb(spreads.max())
        let peerSpreads = encodings.compactMap { rss($0, tool: "vipsthumbnail", render: "thumbnail") }.map {
            $0.max - $0.min
        }
        values["encodings_vips_max_spread_mb"] = mb(peerSpreads.max())
        return values
    }

    /// encodings.dat: per encoding, medians in MB of our full and thumbnail (system allocator),
    /// vipsthumbnail, and our stream renderer (NaN when not measured).
    package func chartData() -> String {
        var lines = ["# encoding full_mb thumbnail_mb vipsthumbnail_mb stream_mb (median peak RSS over baseline)"]
        for encoding in encodings {
            let columns = [
                rss(encoding, render: "full"), rss(encoding, render: "thumbnail"),
                rss(encoding, tool: "vipsthumbnail", render: "thumbnail"), rss(encoding, render: "stream"),
            ]
            .map { $0.map { String(format: "%.2f", $0.median / 1e6) } ?? "NaN" }
            lines.append("\"\(encoding)\" " + columns.joined(separator: " "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
