import BenchCore
import Foundation
import Harness
import Imaging
import Report

/// What each image costs to show, per renderer, and the images ranked by cost per pixel.
package struct ImageCost: Sendable {
    package var image: CorpusImage
    /// Per renderer: the median peak RSS delta (bytes) of the image's costliest cell with that
    /// renderer (with several strategies or allocators, the worst of them), over its successful runs.
    package var medianPeakByRender: [RenderMode: Double]
    /// Per renderer: the floor of that costliest cell (the least its contract needs at once), if declared.
    package var floorByRender: [RenderMode: Int] = [:]
    package var okRuns: Int
    package var runs: Int

    /// Bytes of peak RSS per pixel of the image (its full size, whatever the renderer made of it).
    package func bytesPerPixel(_ render: RenderMode) -> Double? {
        guard let peak = medianPeakByRender[render], let pixels = image.facts?.pixelCount, pixels > 0 else {
            return nil
        }
        return peak / Double(pixels)
    }
}

package enum CorpusRanking {
    /// The renderer the ranking goes by: `full` when measured, else the first measured one.
    package static func rankingRender(_ renders: [RenderMode]) -> RenderMode? {
        renders.contains(.full) ? .full : renders.first
    }

    /// Every measured image, costliest per pixel first (images with no successful run last).
    package static func rank(_ rows: [CorpusRow], by render: RenderMode) -> [ImageCost] {
        var order: [String] = []
        var byImage: [String: [CorpusRow]] = [:]
        for row in rows where row.result != nil {
            if byImage[row.image.entry.name] == nil { order.append(row.image.entry.name) }
            byImage[row.image.entry.name, default: []].append(row)
        }
        let costs = order.map { name -> ImageCost in
            let imageRows = byImage[name]!
            var byCell: [TrialCell: [Int]] = [:]
            var floors: [TrialCell: Int] = [:]
            for row in imageRows {
                guard let result = row.result, result.isSuccess, let peak = result.peakRSSDeltaBytes else { continue }
                byCell[result.cell, default: []].append(peak)
                floors[result.cell] = result.floorBytes ?? floors[result.cell]
            }
            var medians: [RenderMode: Double] = [:]
            var floorByRender: [RenderMode: Int] = [:]
            for (cell, peaks) in byCell.sorted(by: { $0.key < $1.key }) {
                guard let median = Distribution(peaks)?.median,
                    median > medians[cell.render] ?? -.infinity
                else { continue }
                medians[cell.render] = median
                floorByRender[cell.render] = floors[cell]
            }
            return ImageCost(
                image: imageRows[0].image,
                medianPeakByRender: medians,
                floorByRender: floorByRender,
                okRuns: imageRows.filter(\.isSuccess).count,
                runs: imageRows.count
            )
        }
        return costs.sorted { lhs, rhs in
            switch (lhs.bytesPerPixel(render), rhs.bytesPerPixel(render)) {
            case let (l?, r?): return l != r ? l > r : lhs.image.entry.name < rhs.image.entry.name
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return lhs.image.entry.name < rhs.image.entry.name
            }
        }
    }

    /// The ranking as a table for the terminal, then one line naming the worst image.
    package static func table(_ costs: [ImageCost], renders: [RenderMode], rankedBy render: RenderMode) -> String {
        var header = ["rank", "file", "encoding", "size", "MP"]
        for mode in renders { header += ["\(mode.rawValue) MB", "\(mode.rawValue) B/px", "\(mode.rawValue) floor"] }
        header.append("ok")
        var body: [[String]] = []
        for (rank, cost) in costs.enumerated() {
            let facts = cost.image.facts
            let size: String = facts.map { "\($0.width)x\($0.height)" } ?? "?"
            let megapixels: String = (facts?.pixelCount).map { String(format: "%.1f", Double($0) / 1e6) } ?? ""
            var line: [String] = [
                String(rank + 1), cost.image.entry.name, facts?.encodingLabel ?? "", size, megapixels,
            ]
            for mode in renders {
                line.append(cost.medianPeakByRender[mode].map { String(format: "%.1f", $0 / 1e6) } ?? "-")
                line.append(cost.bytesPerPixel(mode).map { String(format: "%.2f", $0) } ?? "-")
                line.append(cost.floorByRender[mode].map { String(format: "%.1f", Double($0) / 1e6) } ?? "-")
            }
            line.append("\(cost.okRuns)/\(cost.runs)")
            body.append(line)
        }
        let widths = header.indices.map { column in ([header] + body).map { $0[column].count }.max() ?? 0 }
        func format(_ fields: [String]) -> String {
            fields.enumerated().map { index, field in
                index == 1 || index == 2
                    ? field.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - field.count) + field
            }.joined(separator: "  ")
        }
        var lines = [
            "Images ranked by peak RSS delta per pixel (\(render.rawValue)), costliest first. MB: median peak RSS delta over the baseline (10^6 bytes); B/px: that over the image's pixel count;"
                + " floor: the least that cell's contract needs at once, in MB.",
            format(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "),
        ]
        lines += body.map(format)
        if let sentence = worstSentence(costs, render: render) { lines.append(sentence) }
        return lines.joined(separator: "\n")
    }

    /// "worst per pixel (full): a.jpg, jpeg progressive 4:2:0 6000x4000: 7.01 bytes per pixel (168.3 MB)".
    package static func worstSentence(_ costs: [ImageCost], render: RenderMode) -> String? {
        guard let worst = costs.first, let perPixel = worst.bytesPerPixel(render),
            let peak = worst.medianPeakByRender[render], let facts = worst.image.facts
        else { return nil }
        return String(
            format: "worst per pixel (%@): %@, %@ %dx%d: %.2f bytes per pixel (%.1f MB)",
            render.rawValue,
            worst.image.entry.name,
            facts.encodingLabel,
            facts.width,
            facts.height,
            perPixel,
            peak / 1e6
        )
    }

    /// corpus-summary.csv: the ranking, one row per image.
    package static func csv(_ costs: [ImageCost], renders: [RenderMode], runID: String) -> String {
        var header = ["rank", "file", "format", "encoding", "width", "height", "pixels", "payload_bytes"]
        for mode in renders {
            header += ["\(mode.rawValue)_median_peak_rss_delta_bytes", "\(mode.rawValue)_bytes_per_pixel"]
        }
        header += ["ok_runs", "runs", TrialsCSV.runIDColumn]
        var lines = [CSV.line(header)]
        for (rank, cost) in costs.enumerated() {
            let facts = cost.image.facts
            var fields: [String] = [
                String(rank + 1), cost.image.entry.name, cost.image.format?.rawValue ?? "", facts?.encodingLabel ?? "",
            ]
            fields.append((facts?.width).map { String($0) } ?? "")
            fields.append((facts?.height).map { String($0) } ?? "")
            fields.append((facts?.pixelCount).map { String($0) } ?? "")
            fields.append(cost.image.fileBytes.map { String($0) } ?? "")
            for mode in renders {
                fields.append(cost.medianPeakByRender[mode].map { String(format: "%.0f", $0) } ?? "")
                fields.append(cost.bytesPerPixel(mode).map { String(format: "%.4f", $0) } ?? "")
            }
            fields += [String(cost.okRuns), String(cost.runs), runID]
            lines.append(CSV.line(fields))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
