import BenchCore
import Foundation

/// `server-slopes.csv`: per strategy, renderer, allocator and render threads, across its
/// concurrencies and runs, the memory each request in flight adds (the slope of the peak against
/// the requests in flight at it) and the fixed cost (the intercept), each with its 95% interval,
/// and how many requests in flight fit a container of 512 MB, 1 GB and 2 GB by RSS.
package struct ServerSlope: Sendable {
    package var strategy: String
    package var render: RenderMode
    package var allocator: Allocator
    package var renderThreads: Int?
    package var points: Int
    package var heap: (fit: LinearFit, slope: ClosedRange<Double>, intercept: ClosedRange<Double>)?
    package var rss: (fit: LinearFit, slope: ClosedRange<Double>, intercept: ClosedRange<Double>)?
    /// The server's RSS before the load (median of the runs' baselines): what a container holds first.
    package var baselineRSSBytes: Int?

    /// The container sizes the summary answers for, in bytes.
    package static let containers: [(name: String, bytes: Int)] = [
        ("512mb", 512 << 20), ("1gb", 1 << 30), ("2gb", 2 << 30),
    ]

    /// Requests in flight that fit `bytes` of RSS: the baseline, the fixed cost, then a slope each.
    package func requestsFitting(_ bytes: Int) -> Int? {
        guard let rss, let baselineRSSBytes, rss.fit.slope > 0 else { return nil }
        let room = Double(bytes - baselineRSSBytes) - rss.fit.intercept
        return max(0, Int((room / rss.fit.slope).rounded(.down)))
    }

    /// One slope per group of ok runs; the heap's x is the requests in flight at the heap peak, RSS's
    /// the most in flight in the window (its peak's moment is not read).
    package static func of(_ results: [ServerResult]) -> [ServerSlope] {
        let ok = results.filter { $0.status == .ok }
        var groups: [String: [ServerResult]] = [:]
        var order: [String] = []
        for result in ok {
            let key =
                "\(result.strategy) \(result.render.rawValue) \(result.allocator.rawValue) \(result.renderThreads ?? 0)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(result)
        }
        return order.compactMap { key in
            guard let group = groups[key], let first = group.first else { return nil }
            let heapPoints = group.compactMap { result in
                result.peakHeapDeltaBytes.map { (x: Double(result.report.stagesAtHeapPeak.inFlight), y: Double($0)) }
            }
            let rssPoints = group.compactMap { result in
                result.peakRSSDeltaBytes.map { (x: Double(result.report.maxInFlight), y: Double($0)) }
            }
            let baselines = group.compactMap(\.report.baselineRSSBytes).sorted()
            return ServerSlope(
                strategy: first.strategy,
                render: first.render,
                allocator: first.allocator,
                renderThreads: first.renderThreads,
                points: group.count,
                heap: LinearFit.intervals(heapPoints),
                rss: LinearFit.intervals(rssPoints),
                baselineRSSBytes: baselines.isEmpty ? nil : baselines[baselines.count / 2]
            )
        }
    }
}

/// server-slopes.csv's columns.
package enum ServerSlopesCSV {
    package static let fileName = "server-slopes.csv"

    private static func text(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "" }

    package static let columns: [WrittenColumn<ServerSlope>] =
        [
            .init("strategy", .text, .neither, "the fetch strategy") { $0.strategy },
            .init("render", .text, .neither, "the renderer") { $0.render.rawValue },
            .init("allocator", .text, .neither, "system (glibc) or jemalloc") { $0.allocator.rawValue },
            .init("render_threads", .text, .neither, "threads of the render pool, or unbounded") {
                $0.renderThreads.map(String.init) ?? "unbounded"
            },
            .init("points", .count, .neither, "ok runs fitted (every concurrency and run)") { String($0.points) },
            .init("slope_heap_bytes", .bytes, .lowerIsBetter, "exact heap peak added by each request in flight at it") {
                text($0.heap?.fit.slope)
            },
            .init("slope_heap_low_bytes", .bytes, .neither, "its 95% interval's low end") {
                text($0.heap?.slope.lowerBound)
            },
            .init("slope_heap_high_bytes", .bytes, .neither, "its 95% interval's high end") {
                text($0.heap?.slope.upperBound)
            },
            .init("intercept_heap_bytes", .bytes, .lowerIsBetter, "the heap peak's fixed cost (the line at no request)")
            {
                text($0.heap?.fit.intercept)
            },
            .init(
                "slope_rss_bytes",
                .bytes,
                .lowerIsBetter,
                "peak RSS added by each request in flight (the most at once)"
            ) {
                text($0.rss?.fit.slope)
            },
            .init("slope_rss_low_bytes", .bytes, .neither, "its 95% interval's low end") {
                text($0.rss?.slope.lowerBound)
            },
            .init("slope_rss_high_bytes", .bytes, .neither, "its 95% interval's high end") {
                text($0.rss?.slope.upperBound)
            },
            .init("intercept_rss_bytes", .bytes, .lowerIsBetter, "peak RSS's fixed cost") {
                text($0.rss?.fit.intercept)
            },
            .init("baseline_rss_bytes", .bytes, .neither, "the server's RSS before the load (median)") {
                $0.baselineRSSBytes.map(String.init) ?? ""
            },
        ]
        + ServerSlope.containers.map { container in
            .init(
                "fits_\(container.name)",
                .count,
                .higherIsBetter,
                "requests in flight that fit \(container.name) of RSS: baseline, fixed cost, then a slope each"
            ) { slope in slope.requestsFitting(container.bytes).map(String.init) ?? "" }
        }
}
