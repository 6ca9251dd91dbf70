import BenchCore
import Foundation
import ImageServer
import Report
import Strategies

/// docs/MEASUREMENT.md's calibration of `--memory-budget`'s prediction: what `RequestCost` says a
/// single trial holds (no answer is made in a trial), beside the exact heap peak the committed matrix
/// measured (results/trials.csv, the article's image), for every strategy, renderer and allocator.
package struct PredictedCostFigures: Sendable {
    package struct Cell: Sendable, Equatable {
        package var strategy: String
        /// How the strategy holds its body (`RequestCost.BodyHolding`): the prediction's rule.
        package var holding: String
        package var render: String
        package var allocator: String
        /// The median of the cell's exact heap peaks over its baseline.
        package var measuredBytes: Double
        package var predictedBytes: Int

        package var ratio: Double { Double(predictedBytes) / max(1, measuredBytes) }
    }

    package var cells: [Cell]

    package init(cells: [Cell]) { self.cells = cells }

    /// The cells of trials.csv's rows (ok, exact heap measured): the image's size is the largest
    /// rendered one (a `full` render's is the image's own), its body the rows' payload.
    package static func from(trials rows: [[String: String]], maxPixel: Int) -> PredictedCostFigures {
        let measured = rows.filter {
            $0["status"] == TrialStatus.ok.rawValue && Int($0["peak_heap_exact_delta_bytes"] ?? "") != nil
        }
        let sizes = measured.compactMap { row -> (Int, Int)? in
            guard let width = Int(row["image_width"] ?? ""), let height = Int(row["image_height"] ?? "") else {
                return nil
            }
            return (width, height)
        }
        guard let (width, height) = sizes.max(by: { $0.0 * $0.1 < $1.0 * $1.1 }) else {
            return PredictedCostFigures(cells: [])
        }
        let cells = ServerChartData.groups(measured, by: ["strategy", "render", "allocator"]).compactMap {
            cell -> Cell? in
            let group = cell.rows
            let first = group[0]
            guard let strategyName = first["strategy"], let strategy = StrategyCatalog.strategy(named: strategyName),
                let render = first["render"], let allocator = Allocator(rawValue: first["allocator"] ?? ""),
                let payload = Int(first["payload_bytes"] ?? "")
            else { return nil }
            let cost = RequestCost(
                holding: RequestCost.holding(strategy: strategy, upload: .collect),
                renderer: render,
                maxPixel: maxPixel,
                allocator: allocator
            )
            let image = RequestCost.Image(format: .jpeg, width: width, height: height, bodyBytes: payload)
            let peaks = group.compactMap { Double($0["peak_heap_exact_delta_bytes"] ?? "") }
            return Cell(
                strategy: strategyName,
                holding: cost.holding.rawValue,
                render: render,
                allocator: allocator.rawValue,
                measuredBytes: Distribution.percentile(peaks.sorted(), 0.5),
                predictedBytes: cost.trialBytes(for: image)
            )
        }
        return PredictedCostFigures(cells: cells)
    }

    /// One row per rule, renderer and allocator: the strategies it covers, their measured medians'
    /// range, the prediction (the same for all of them) and its ratio to the largest.
    package func table() -> String {
        guard !cells.isEmpty else { return "No trials.csv with exact heap peaks in this folder.\n" }
        var lines = [
            "| body held as | render | allocator | strategies | measured (MB) | predicted (MB) | predicted / largest |",
            "|---|---|---|---|---:|---:|---:|",
        ]
        var order: [String] = []
        var groups: [String: [Cell]] = [:]
        for cell in cells {
            let key = [cell.holding, cell.render, cell.allocator].joined(separator: "|")
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(cell)
        }
        for key in order {
            let group = groups[key]!
            let measured = group.map(\.measuredBytes)
            let (low, high) = (measured.min()! / 1e6, measured.max()! / 1e6)
            let predicted = Double(group.map(\.predictedBytes).max()!)
            let range =
                String(format: "%.1f", low) == String(format: "%.1f", high)
                ? String(format: "%.1f", high) : String(format: "%.1f-%.1f", low, high)
            lines.append(
                "| \(group[0].holding) | \(group[0].render) | \(group[0].allocator) | "
                    + group.map(\.strategy).joined(separator: ", ")
                    + " | \(range) | " + String(format: "%.1f | %.2f |", predicted / 1e6, predicted / (high * 1e6))
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rules' constants, quoted by docs/MEASUREMENT.md.
    package static func ruleValues() -> [String: String] {
        [
            "predicted_cost_part_kib": String(OriginHeader.partBytes >> 10),
            "predicted_cost_upload_head_kib": String(RequestCost.uploadHeadBytes >> 10),
            "predicted_cost_worst_body_mib": String(ServerSpec.defaultMaxUploadBytes >> 20),
            "predicted_cost_fixed_mib": String(RequestCost.perRequestBytes >> 20),
            "predicted_cost_streaming_mib": String(RequestCost.streamingBytes >> 20),
            "predicted_cost_stream_column_bytes": String(RequestCost.streamBytesPerColumn),
        ]
    }

    package func values() -> [String: String] {
        let ratios = cells.map(\.ratio)
        let excesses = cells.map { Double($0.predictedBytes) - $0.measuredBytes }
        guard let low = ratios.min(), let excess = excesses.max() else { return Self.ruleValues() }
        return Self.ruleValues().merging([
            "predicted_cost_cells": String(cells.count),
            "predicted_cost_min_ratio": String(format: "%.2f", low),
            "predicted_cost_max_excess_mb": String(format: "%.1f", excess / 1e6),
        ]) { first, _ in first }
    }
}
