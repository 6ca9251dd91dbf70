import BenchCore
import Foundation
import ImageServer

/// `server.csv`: one row per image-server cell and run.
package enum ServerCSV {
    package static let fileName = "server.csv"
    package static let keyColumns = [
        "strategy", "render", "allocator", "route", "body", "concurrency", "render_threads", "run",
    ]

    /// The cells are written as trials.csv's are.
    private static func text(_ value: Int?) -> String { TrialsCSV.text(value) }
    private static func text(_ value: Double?, digits: Int = 6) -> String { TrialsCSV.text(value, digits: digits) }

    package static let columns: [WrittenColumn<ServerResult>] = [
        .init("strategy", .text, .neither, "the fetch strategy each request used (none: the route is post)") {
            $0.strategy
        },
        .init("render", .text, .neither, "the renderer before the answer's resize and encode") { $0.render.rawValue },
        .init("allocator", .text, .neither, "system (glibc) or jemalloc") { $0.allocator.rawValue },
        .init(
            "route",
            .text,
            .neither,
            "the measured route: get (the server fetches from the origin) or post (the image is the request's body)"
        ) { $0.route.name },
        .init(
            "body",
            .text,
            .neither,
            "how post holds the upload: collect (in memory) or file (streamed to a file); none for get (a file without the column: none)"
        ) { $0.route.bodyName },
        .init("load", .text, .neither, "who sent the requests: parent (exactly C in flight) or outside (--listen)") {
            $0.loadFromOutside ? "outside" : "parent"
        },
        .init("concurrency", .count, .neither, "requests the load kept in flight (C); also the fetch pool's threads") {
            String($0.concurrency)
        },
        .init("render_threads", .text, .neither, "threads of the render pool, or unbounded (a thread per request)") {
            $0.renderThreads.map(String.init) ?? "unbounded"
        },
        .init(
            "client_cap",
            .count,
            .neither,
            "connections to one host the URLSession strategies' shared session allowed: C, or as shipped (--client-cap default)"
        ) { text($0.report.clientConnectionsPerHost) },
        .init("run", .count, .neither, "the run of this cell, from 1") { String($0.run) },
        .init(
            "fixture",
            .text,
            .neither,
            "the image every request asks for, WIDTHxHEIGHT; with --images, FOLDER/ (N images)"
        ) { $0.fixture },
        .init("status", .text, .neither, "ok, or why the run has no measurement (harness_error, crashed, timeout)") {
            $0.status.rawValue
        },
        .init("requests", .count, .neither, "requests the load sent in the window (with --listen: the server answered)")
        {
            String($0.requestsSent)
        },
        .init("requests_ok", .count, .higherIsBetter, "requests answered 2xx") { String($0.requestsOK) },
        .init("requests_failed", .count, .lowerIsBetter, "requests answered otherwise, or not at all") {
            String($0.requestsSent - $0.requestsOK)
        },
        .init(
            "max_in_flight",
            .count,
            .neither,
            "the most requests in flight at once in the server (in the route: received, not yet answered)"
        ) {
            String($0.report.maxInFlight)
        },
        .init(
            "in_flight_at_peak",
            .count,
            .neither,
            "requests in flight when the live heap was highest (read every sample)"
        ) {
            String($0.report.stagesAtHeapPeak.inFlight)
        },
        .init("fetching_at_peak", .count, .neither, "of those, fetching from the origin") {
            String($0.report.stagesAtHeapPeak.fetching)
        },
        .init("waiting_at_peak", .count, .neither, "of those, fetched and waiting for a render thread") {
            String($0.report.stagesAtHeapPeak.waitingToRender)
        },
        .init("rendering_at_peak", .count, .neither, "of those, decoding, resizing and encoding the answer") {
            String($0.report.stagesAtHeapPeak.rendering)
        },
        .init("writing_at_peak", .count, .neither, "of those, writing the answer") {
            String($0.report.stagesAtHeapPeak.writing)
        },
        .init("baseline_rss_bytes", .bytes, .neither, "the server's RSS when the window opened, warmed up at C") {
            text($0.report.baselineRSSBytes)
        },
        .init("peak_rss_delta_bytes", .bytes, .lowerIsBetter, "peak RSS in the window over its baseline") {
            text($0.peakRSSDeltaBytes)
        },
        .init("baseline_heap_bytes", .bytes, .neither, "the live heap when the window opened") {
            text($0.report.baselineHeapBytes)
        },
        .init(
            "peak_heap_exact_delta_bytes",
            .bytes,
            .lowerIsBetter,
            "the exact heap peak in the window over its baseline"
        ) {
            text($0.report.heapIsExact ? $0.peakHeapDeltaBytes : nil)
        },
        .init(
            "floor_bytes",
            .bytes,
            .neither,
            "what each stage's requests at the heap peak must hold by the floor rules"
        ) {
            text($0.floorBytes)
        },
        .init(
            "throughput_rps",
            .hertz,
            .higherIsBetter,
            "requests answered 2xx a second over the load (with --listen: from the first request's arrival to the last one's end)"
        ) {
            text($0.throughput, digits: 3)
        },
        .init("latency_p50_s", .seconds, .lowerIsBetter, "median time from sending a request to its answer's end (2xx)")
        {
            text($0.latency(quantile: 0.5))
        },
        .init("latency_p90_s", .seconds, .lowerIsBetter, "90th percentile of that time") {
            text($0.latency(quantile: 0.9))
        },
        .init("latency_p99_s", .seconds, .lowerIsBetter, "99th percentile of that time") {
            text($0.latency(quantile: 0.99))
        },
        .init("budget_bytes", .bytes, .neither, "--memory-budget: admitted while predicted costs fit it; empty: none") {
            text($0.admission.budgetBytes)
        },
        .init("workers", .count, .neither, "--workers: image requests handled at once at most; empty: no count") {
            text($0.admission.workers)
        },
        .init(
            "queue",
            .count,
            .neither,
            "requests that may wait for admission (--queue, default 4 x C); empty: no gate"
        ) {
            $0.admission.gated ? String($0.queueLimit) : ""
        },
        .init("admitted_max", .count, .neither, "the most requests admitted at once; empty: no gate") {
            text($0.report.admission?.mostAdmitted)
        },
        .init("queued_max", .count, .neither, "the most requests waiting for admission at once; empty: no gate") {
            text($0.report.admission?.mostQueued)
        },
        .init("reserved_max_bytes", .bytes, .neither, "the most predicted bytes reserved at once (with a budget)") {
            $0.admission.budgetBytes == nil ? "" : text($0.report.admission?.mostReservedBytes)
        },
        .init("rejected_503", .count, .lowerIsBetter, "requests answered 503 (Retry-After): the queue was full") {
            text($0.report.admission?.rejectedQueueFull)
        },
        .init(
            "rejected_413",
            .count,
            .neither,
            "requests answered 413 before their body was held: over --max-image-pixels, or costing more than the whole budget"
        ) {
            $0.admission.budgetBytes == nil
                ? "" : String($0.report.rejectedTooManyPixels + ($0.report.admission?.rejectedOverBudget ?? 0))
        },
        .init("queue_p50_s", .seconds, .lowerIsBetter, "median time an admitted request waited for admission") {
            text($0.queueTime(quantile: 0.5))
        },
        .init("queue_p99_s", .seconds, .lowerIsBetter, "99th percentile of that time") {
            text($0.queueTime(quantile: 0.99))
        },
        .init(
            "overruns",
            .count,
            .lowerIsBetter,
            "admitted requests that held more than their prediction (recomputed from the body received); empty: no budget"
        ) {
            $0.admission.budgetBytes == nil ? "" : String($0.report.overruns)
        },
        .init(
            "holders_dropped",
            .count,
            .lowerIsBetter,
            "large blocks the holder table had no room for (0: server-holders.csv names every holder at the peak)"
        ) {
            text($0.report.holdersDropped)
        },
        .init("window_s", .seconds, .neither, "the measured window, from the load's start to the settled end") {
            text($0.report.windowSeconds)
        },
        .init("pid", .text, .neither, "the server child's pid") { String($0.report.pid) },
        .init("error", .text, .neither, "why the run failed, in the harness's words") { $0.error },
    ]

    /// A server.csv's header and its rows by column name (what its readers key on: a file of an
    /// earlier version may lack a column).
    package static func rowsByName(_ text: String) throws -> (header: [String], rows: [[String: String]]) {
        let table = try CSV.parse(text).filter { $0 != [""] }
        guard let header = table.first else { return ([], []) }
        return (header, table.dropFirst().map { Dictionary(zip(header, $0), uniquingKeysWith: { first, _ in first }) })
    }

    package static func column(named name: String) -> WrittenColumn<ServerResult>? {
        columns.first { $0.name == name }
    }

    /// The columns that name a row's cell and run, in a file of other rows (requests, holders).
    static func cellColumns<Row>(_ result: @escaping @Sendable (Row) -> ServerResult) -> [WrittenColumn<Row>] {
        [
            .init("strategy", .text, .neither, "the cell's strategy") { result($0).strategy },
            .init("render", .text, .neither, "the cell's renderer") { result($0).render.rawValue },
            .init("allocator", .text, .neither, "the cell's allocator") { result($0).allocator.rawValue },
            .init("route", .text, .neither, "the cell's route") { result($0).route.name },
            .init("body", .text, .neither, "the cell's upload body (none for get)") { result($0).route.bodyName },
            .init("concurrency", .count, .neither, "the cell's requests in flight") { String(result($0).concurrency) },
            .init("render_threads", .text, .neither, "the cell's render threads") {
                result($0).renderThreads.map(String.init) ?? "unbounded"
            },
            .init("run", .count, .neither, "the cell's run") { String(result($0).run) },
        ]
    }
}

/// `requests.csv`: every request the load sent in the window, with its cell.
package enum RequestsCSV {
    package static let fileName = "requests.csv"

    package struct Row: Sendable {
        package var result: ServerResult
        package var request: RequestRecord
    }

    package static let columns: [WrittenColumn<Row>] =
        ServerCSV.cellColumns { $0.result } + [
            .init("request", .count, .neither, "the request's number in the window, from 0") {
                String($0.request.index)
            },
            .init("image", .text, .neither, "the image it asked for (--images: by served name)") { row in
                let names = row.result.imageNames
                return names.isEmpty ? "" : names[row.request.index % names.count]
            },
            .init("status", .count, .neither, "its HTTP status; 0: no answer") { String($0.request.status) },
            .init("bytes", .bytes, .neither, "the answer's body bytes") { String($0.request.bytes) },
            .init("latency_s", .seconds, .lowerIsBetter, "from sending it to its answer's last byte") {
                String(format: "%.6f", $0.request.latencySeconds)
            },
            .init("error", .text, .neither, "the client's error when no answer came") { $0.request.error },
        ]

    package static func rows(of result: ServerResult) -> [Row] {
        result.requests.map { Row(result: result, request: $0) }
    }
}

/// `server-holders.csv`: who held the exact heap at each run's peak, largest first, with its role:
/// the blocks of at least the holder threshold grouped by allocating stack, as a trial's holders.csv.
package enum ServerHoldersCSV {
    package static let fileName = "server-holders.csv"

    package struct Row: Sendable {
        package var result: ServerResult
        package var rank: Int
        package var holder: PeakHolder
    }

    package static let columns: [WrittenColumn<Row>] =
        ServerCSV.cellColumns { $0.result } + [
            .init("rank", .count, .neither, "1: the largest holder at the peak") { String($0.rank) },
            .init("bytes", .bytes, .lowerIsBetter, "its blocks' bytes live at the exact heap peak") {
                String($0.holder.bytes)
            },
            .init("blocks", .count, .neither, "its blocks live at the peak (one per request holding one)") {
                String($0.holder.blocks)
            },
            .init("role", .text, .neither, "what the blocks are for: body, body-buffer, bitmap, decoder, cache, other")
            {
                $0.holder.role?.rawValue ?? ""
            },
            .init("allocated_by", .text, .neither, "the first frame that is not the allocator, the runtime or storage")
            {
                $0.holder.allocatedBy
            },
            .init("module", .text, .neither, "the file that frame is in") { $0.holder.module },
            .init("stack", .text, .neither, "the allocating stack, outermost first, frames joined by ';'") {
                $0.holder.foldedStack
            },
        ]

    package static func rows(of result: ServerResult) -> [Row] {
        (result.holders ?? []).enumerated().map { Row(result: result, rank: $0.offset + 1, holder: $0.element) }
    }
}

/// `server-residency.csv`: each run's RSS at its RSS peak and at its window's end, broken into
/// categories over the baseline, as a trial's residency.csv: a moment's rows add up to its RSS delta.
package enum ServerResidencyCSV {
    package static let fileName = "server-residency.csv"

    package struct Row: Sendable {
        package var result: ServerResult
        package var row: ResidencyRow
    }

    package static let columns: [WrittenColumn<Row>] =
        ServerCSV.cellColumns { $0.result } + [
            .init("moment", .text, .neither, "rss-peak (the snapshot nearest the RSS peak) or end (the settled end)") {
                $0.row.moment.rawValue
            },
            .init("category", .text, .neither, "what of RSS the bytes are (docs/MEASUREMENT.md, residency)") {
                $0.row.category.rawValue
            },
            .init("how", .text, .neither, "measured, derived or upper-bound") {
                $0.row.category.how(under: $0.result.allocator, exactHeap: $0.result.report.heapIsExact).rawValue
            },
            .init("bytes", .bytes, .lowerIsBetter, "the category's delta over the window's baseline") {
                String($0.row.bytes)
            },
        ]

    package static func rows(of result: ServerResult) -> [Row] {
        (result.report.residency ?? []).map { Row(result: result, row: $0) }
    }
}
