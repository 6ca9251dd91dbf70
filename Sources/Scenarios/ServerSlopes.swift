import BenchCore
import Foundation
import ImageServer

/// One ok run of a cell as the slopes see it: from a run just measured, or from a row of server.csv.
package struct ServerPoint: Sendable, Equatable {
    package var strategy: String
    package var render: String
    package var allocator: String
    /// get or post (`ImageRoute.name`).
    package var route = "get"
    /// collect, file, or none (`ImageRoute.bodyName`).
    package var body = ImageRoute.noBody
    /// A number, or "unbounded".
    package var renderThreads: String
    package var concurrency: Int
    package var inFlightAtPeak: Int
    package var maxInFlight: Int
    package var heapDeltaBytes: Int?
    /// Peak RSS itself (the baseline plus its delta): the warm-up at C leaves the allocator holding
    /// memory that grows with C, which a delta over that baseline would leave out.
    package var peakRSSBytes: Int?
    package var floorBytes: Int?

    package init(
        strategy: String,
        render: String,
        allocator: String,
        renderThreads: String,
        concurrency: Int,
        inFlightAtPeak: Int,
        maxInFlight: Int,
        heapDeltaBytes: Int?,
        peakRSSBytes: Int?,
        floorBytes: Int?
    ) {
        self.strategy = strategy
        self.render = render
        self.allocator = allocator
        self.renderThreads = renderThreads
        self.concurrency = concurrency
        self.inFlightAtPeak = inFlightAtPeak
        self.maxInFlight = maxInFlight
        self.heapDeltaBytes = heapDeltaBytes
        self.peakRSSBytes = peakRSSBytes
        self.floorBytes = floorBytes
    }

    /// nil for a run that failed.
    package init?(_ result: ServerResult) {
        guard result.status == .ok else { return nil }
        self.init(
            strategy: result.strategy,
            render: result.render.rawValue,
            allocator: result.allocator.rawValue,
            renderThreads: result.renderThreads.map(String.init) ?? "unbounded",
            concurrency: result.concurrency,
            inFlightAtPeak: result.report.stagesAtHeapPeak.inFlight,
            maxInFlight: result.report.maxInFlight,
            heapDeltaBytes: result.report.heapIsExact ? result.peakHeapDeltaBytes : nil,
            peakRSSBytes: result.report.peakRSSBytes,
            floorBytes: result.floorBytes
        )
        (route, body) = (result.route.name, result.route.bodyName)
    }

    /// From a row of server.csv (by column name); nil for a failed run or a row without its keys. A
    /// file written before the image server had a POST route has no `body` column: get, none.
    package init?(row: [String: String]) {
        func int(_ name: String) -> Int? { row[name].flatMap { Int($0) } }
        guard row["status"] == "ok", let strategy = row["strategy"], let render = row["render"],
            let allocator = row["allocator"], let threads = row["render_threads"], let concurrency = int("concurrency"),
            let inFlight = int("in_flight_at_peak"), let most = int("max_in_flight")
        else { return nil }
        let peakRSS = int("baseline_rss_bytes").flatMap { base in int("peak_rss_delta_bytes").map { base + $0 } }
        self.init(
            strategy: strategy,
            render: render,
            allocator: allocator,
            renderThreads: threads,
            concurrency: concurrency,
            inFlightAtPeak: inFlight,
            maxInFlight: most,
            heapDeltaBytes: int("peak_heap_exact_delta_bytes"),
            peakRSSBytes: peakRSS,
            floorBytes: int("floor_bytes")
        )
        (route, body) = (row["route"] ?? "get", row["body"] ?? ImageRoute.noBody)
    }

    package var cell: [String] { [strategy, render, allocator, route, body, renderThreads] }
}

/// `server-slopes.csv`: per strategy, renderer, allocator, route (with post's body) and render
/// threads, across its concurrencies and runs, the memory each request in flight adds (the slope of
/// the peak against the requests in flight at it) and the line's value at none (the intercept), each
/// with its 95% interval; the floor's own slope beside it; and how many requests in flight fit a container.
///
/// One line fits one regime. With a render pool of T threads, the first T requests in flight each
/// render (a body beside a bitmap) and every one past them waits holding its body: the slope is
/// fitted over the runs at C >= T (the requests past the pool), and its intercept holds the T renders.
/// Unbounded, every request renders: every run is fitted.
package struct ServerSlope: Sendable {
    package typealias Fit = (fit: LinearFit, slope: ClosedRange<Double>, intercept: ClosedRange<Double>)

    package var strategy: String
    package var render: String
    package var allocator: String
    package var route: String
    package var body: String
    package var renderThreads: String
    /// The cell's ok runs, and those fitted (C >= the render threads).
    package var runs: Int
    package var fitted: Int
    /// The exact heap peak over the baseline against the requests in flight at it.
    package var heap: Fit?
    /// Peak RSS itself against the most requests in flight in the window (its peak's moment is not read).
    package var rss: Fit?
    /// The floor at the heap peak against the same requests in flight: what the rules say each adds.
    package var floor: Fit?

    /// The container sizes the summary answers for, binary as a container's limit is (512Mi, 1Gi, 2Gi).
    package static let containers: [(name: String, title: String, bytes: Int)] = [
        ("512mib", "512 MiB", 512 << 20), ("1gib", "1 GiB", 1 << 30), ("2gib", "2 GiB", 2 << 30),
    ]

    /// The cell's key, as its points' (`ServerPoint.cell`).
    package var cell: [String] { [strategy, render, allocator, route, body, renderThreads] }

    /// Requests in flight that fit `bytes` of RSS: RSS's line at none, then a slope each.
    package func requestsFitting(_ bytes: Int) -> Int? {
        guard let rss, rss.fit.slope > 0 else { return nil }
        return max(0, Int(((Double(bytes) - rss.fit.intercept) / rss.fit.slope).rounded(.down)))
    }

    /// One slope per cell, in the order the cells first appear.
    package static func of(_ points: [ServerPoint]) -> [ServerSlope] {
        var order: [[String]] = []
        var groups: [[String]: [ServerPoint]] = [:]
        for point in points {
            if groups[point.cell] == nil { order.append(point.cell) }
            groups[point.cell, default: []].append(point)
        }
        return order.map { cell in
            let runs = groups[cell] ?? []
            let threads = Int(cell[5])
            let fitted = runs.filter { threads == nil || $0.concurrency >= threads! }
            // At one concurrency the requests in flight at the peak differ by a request or two: a
            // line through them says nothing of what a request adds.
            let spansConcurrencies = Set(fitted.map(\.concurrency)).count >= 2
            func fit(_ x: (ServerPoint) -> Int, _ y: (ServerPoint) -> Int?) -> Fit? {
                guard spansConcurrencies else { return nil }
                return LinearFit.intervals(
                    fitted.compactMap { point in y(point).map { (x: Double(x(point)), y: Double($0)) } }
                )
            }
            return ServerSlope(
                strategy: cell[0],
                render: cell[1],
                allocator: cell[2],
                route: cell[3],
                body: cell[4],
                renderThreads: cell[5],
                runs: runs.count,
                fitted: fitted.count,
                heap: fit(\.inFlightAtPeak, \.heapDeltaBytes),
                rss: fit(\.maxInFlight, \.peakRSSBytes),
                floor: fit(\.inFlightAtPeak, \.floorBytes)
            )
        }
    }

    package static func of(_ results: [ServerResult]) -> [ServerSlope] { of(results.compactMap(ServerPoint.init)) }
}

/// server-slopes.csv's columns.
package enum ServerSlopesCSV {
    package static let fileName = "server-slopes.csv"

    private static func text(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "" }

    package static let columns: [WrittenColumn<ServerSlope>] =
        [
            .init("strategy", .text, .neither, "the fetch strategy") { $0.strategy },
            .init("render", .text, .neither, "the renderer") { $0.render },
            .init("allocator", .text, .neither, "system (glibc) or jemalloc") { $0.allocator },
            .init("route", .text, .neither, "get or post") { $0.route },
            .init("body", .text, .neither, "post's upload: collect or file; none for get") { $0.body },
            .init("render_threads", .text, .neither, "threads of the render pool, or unbounded") { $0.renderThreads },
            .init("runs", .count, .neither, "the cell's ok runs, every concurrency") { String($0.runs) },
            .init(
                "fitted",
                .count,
                .neither,
                "those fitted: every one unbounded, those at C >= the render threads else"
            ) {
                String($0.fitted)
            },
            .init("slope_heap_bytes", .bytes, .lowerIsBetter, "exact heap peak added by each request in flight at it") {
                text($0.heap?.fit.slope)
            },
            .init("slope_heap_low_bytes", .bytes, .neither, "its 95% interval's low end") {
                text($0.heap?.slope.lowerBound)
            },
            .init("slope_heap_high_bytes", .bytes, .neither, "its 95% interval's high end") {
                text($0.heap?.slope.upperBound)
            },
            .init(
                "intercept_heap_bytes",
                .bytes,
                .lowerIsBetter,
                "the heap line at no request in flight: the fixed cost, and a pool's renders"
            ) {
                text($0.heap?.fit.intercept)
            },
            .init(
                "slope_floor_bytes",
                .bytes,
                .neither,
                "what the floor rules say each request in flight adds (the floor's slope)"
            ) {
                text($0.floor?.fit.slope)
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
            .init(
                "intercept_rss_bytes",
                .bytes,
                .lowerIsBetter,
                "peak RSS itself at no request in flight: the server, warmed up"
            ) {
                text($0.rss?.fit.intercept)
            },
        ]
        + ServerSlope.containers.map { container in
            .init(
                "fits_\(container.name)",
                .count,
                .higherIsBetter,
                "requests in flight whose peak RSS fits \(container.title): RSS's line at none, then a slope each"
            ) { slope in slope.requestsFitting(container.bytes).map(String.init) ?? "" }
        }
}
