import Foundation

/// The table printed at the end of a run: per cell, the spread of the peak RSS over baseline,
/// the heap's peak, the floor, and the article's figure beside ours.
package enum SummaryTable {
    static let megabyte = 1_000_000.0

    package static func render(_ summaries: [CellSummary]) -> String {
        let header = [
            "cell", "ok", "median", "95% CI", "p90", "min", "max", "CV", "heap peak", "final", "floor", "article",
        ]
        var rows: [[String]] = []
        for summary in summaries {
            let rss = summary.peakRSSDelta
            let interval = rss?.medianConfidenceInterval()
            let article = summary.articleOverBaselineBytes
            let heap = summary.heapPeakDelta
            rows.append([
                summary.cell.description,
                "\(summary.succeeded)/\(summary.succeeded + summary.failed)",
                mb(rss?.median),
                interval.map { mb($0.low) + "-" + mb($0.high) } ?? "-",
                mb(rss?.p90), mb(rss?.min), mb(rss?.max),
                rss.map { String(format: "%.1f%%", $0.coefficientOfVariation * 100) } ?? "-",
                mb(heap?.distribution.median) + (heap?.exact == false ? "*" : ""),
                mb(summary.finalRSSDelta?.median),
                mb(summary.floorBytes?.median),
                article.map { "~" + String(format: "%.0f", Double($0) / megabyte) } ?? "",
            ])
        }
        var text =
            "Memory over baseline in MB (10^6 bytes): peak RSS (median, bootstrap 95% CI of the median, p90, min, max, CV over runs), "
            + "heap peak (exact; * = sampled) and final RSS (medians), the floor (the least the cell's contract needs, by its rule), "
            + "the article's iOS figure\n"
        text += TextTable.render(header: header, rows: rows)
        for warning in summaries.compactMap(\.stabilityWarning) {
            text += "warning: \(warning)\n"
        }
        return text
    }

    static func mb(_ bytes: Double?) -> String {
        bytes.map { String(format: "%.1f", $0 / megabyte) } ?? "-"
    }
}

/// Plain text columns: the first left-aligned, the others right-aligned.
package enum TextTable {
    package static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func format(_ row: [String]) -> String {
            row.enumerated().map { column, text in
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return column == 0 ? text + padding : padding + text
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([format(header), rule] + rows.map(format)).joined(separator: "\n") + "\n"
    }
}
