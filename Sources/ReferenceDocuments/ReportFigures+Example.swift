import BenchCore
import Foundation
import Report

/// REPORT.md's section on the example package: AsyncHTTPClient against URLSession.
extension ReportFigures {
    /// `example_<strategy>_<render>_<allocator>_mb` (peak RSS), `..._heap_mb` and `..._final_mb`,
    /// the collected body's power-of-two buffer, and the example renderer's cost over a full decode.
    func exampleValues() -> [String: String] {
        guard let example else { return [:] }
        var values: [String: String] = [:]
        values["example_runs_per_cell"] = String(example.summaries.map { $0.succeeded + $0.failed }.max() ?? 0)
        values["example_trials_failed"] = String(example.summaries.map(\.failed).reduce(0, +))
        for summary in example.summaries {
            let key =
                "example_\(summary.cell.strategy)_\(summary.cell.render.rawValue)_\(summary.cell.allocator.rawValue)"
                .replacingOccurrences(of: "-", with: "_")
            guard let rss = summary.peakRSSDelta else { continue }
            values[key + "_mb"] = mb(rss.median)
            if let heap = summary.heapPeakDelta?.distribution { values[key + "_heap_mb"] = mb(heap.median) }
            if let final = summary.finalRSSDelta { values[key + "_final_mb"] = mb(final.median) }
        }
        // The example's own renderer against the built-in full decode: what its small bitmap adds to the peak.
        if let resized = example.summary("download", RenderMode(rawValue: "decode-then-resize"), .system)?
            .heapPeakDelta?.distribution,
            let full = example.summary("download", .full, .system)?.heapPeakDelta?.distribution
        {
            values["example_resize_over_full_heap_mb"] = mb(resized.median - full.median)
        }
        // Who holds the collected body's peak: each allocator's largest holder at the median run.
        for allocator in Allocator.allCases {
            let holders =
                example.medianHolders[TrialCell(strategy: "ahc-collect", render: .none, allocator: allocator)] ?? []
            if let holder = holders.first {
                let key = "example_ahc_collect_none_\(allocator.rawValue)_holder"
                values[key] = holder.allocatedBy
                values[key + "_mb"] = mb(Double(holder.bytes))
                values[key + "_module"] = holder.module
                values[key + "_blocks"] = String(holder.blocks)
            }
        }
        if let payload = example.payloadBytes {
            // ByteBuffer grows to the next power of two (NIO's nextPowerOf2ClampedToMax); a realloc
            // that moves holds the half-size block it came from as well.
            let capacity = 1 << (Int.bitWidth - (payload - 1).leadingZeroBitCount)
            values["example_bytebuffer_capacity_mb"] = mb(Double(capacity))
            values["example_bytebuffer_moving_realloc_mb"] = mb(Double(capacity + capacity / 2))
            values["example_payload_mb"] = mb(Double(payload))
        }
        return values
    }

    /// Peak RSS and exact heap peak over baseline per strategy and renderer, both allocators.
    package func exampleTable() -> String {
        guard let example else { return "No example run: run `bench-reference measure example` (results/example/).\n" }
        var header = ["strategy", "render"]
        for allocator in example.allocators {
            header += ["\(allocator.title): peak RSS", "heap peak", "CV"]
        }
        var rows: [[String]] = []
        for render in example.renders {
            for strategy in ExampleComparison.strategies {
                var row = [strategy, render.rawValue]
                for allocator in example.allocators {
                    guard let summary = example.summary(strategy, render, allocator), let rss = summary.peakRSSDelta
                    else {
                        row += ["–", "–", "–"]
                        continue
                    }
                    row += [
                        mb(rss.median),
                        summary.heapPeakDelta.map { mb($0.distribution.median) + ($0.exact ? "" : "*") } ?? "–",
                        String(format: "%.1f%%", rss.coefficientOfVariation * 100),
                    ]
                }
                rows.append(row)
            }
        }
        let runs = example.summaries.map { $0.succeeded + $0.failed }.max() ?? 0
        return "Over baseline in MB, medians of \(runs) runs per cell; heap peak exact (* = sampled); "
            + "CV of the peak RSS over runs. Measured by the example's own executable (`ahc-bench`).\n\n"
            + MarkdownTable.render(header: header, rows: rows, leftAligned: 2)
    }
}
