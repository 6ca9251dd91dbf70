import BenchCore
import Foundation
import Harness
import ImageServer
import Imaging
import Report
import Scenarios

/// What `bench scenario image-server` measures: each route x strategy x renderer x allocator x render
/// threads x concurrency, `runs` times, each run in a fresh server child under `requests` requests.
/// A POST route fetches nothing: its cells are not multiplied by the strategies (strategy none).
package struct ServerRequest {
    package var strategies: [String]
    package var renders: [RenderMode]
    package var allocators: [Allocator]
    /// GET, and POST with each upload body.
    package var routes: [ImageRoute] = [.get]
    package var concurrencies: [Int]
    /// nil: a thread per request.
    package var renderThreads: [Int?]
    package var runs: Int
    /// Every other setting; the cell's are each combination's.
    package var template: ImageServerScenario.Settings
    package var output: MeasurementOutput
    package var stop: any StopRequest = SignalStop()
    /// `--listen PORT`: one cell, the server alone for load from outside, measured until SIGINT.
    package var listenPort: Int?
    /// Count the exact heap peak in the server (the default); false: `--no-exact-heap`.
    package var exactHeap = true

    package init(
        strategies: [String],
        renders: [RenderMode],
        allocators: [Allocator],
        concurrencies: [Int],
        renderThreads: [Int?],
        runs: Int,
        template: ImageServerScenario.Settings,
        output: MeasurementOutput
    ) {
        self.strategies = strategies
        self.renders = renders
        self.allocators = allocators
        self.concurrencies = concurrencies
        self.renderThreads = renderThreads
        self.runs = runs
        self.template = template
        self.output = output
    }

    /// `--shard i/n`: only the cells of part i (a cell whole, all its concurrencies and runs, so
    /// that its slope is fitted from one machine's runs).
    package var shard: Shard?

    /// This shard's runs, in order.
    var plan: [(settings: ImageServerScenario.Settings, run: Int)] {
        guard let shard else { return unshardedPlan }
        return unshardedPlan.filter { shard.includes(hash: StableHash.of(Self.cellName($0.settings))) }
    }

    /// A cell's name, the same in every version: what `--shard` hashes.
    static func cellName(_ settings: ImageServerScenario.Settings) -> String {
        let threads = settings.renderThreads.map(String.init) ?? "unbounded"
        return "\(settings.route.name) \(settings.route.bodyName)/\(settings.strategy)/\(settings.render.rawValue)/"
            + "\(settings.allocator.rawValue)/\(threads)"
    }

    /// The distinct cells of `plan`.
    func cellCount(in plan: [(settings: ImageServerScenario.Settings, run: Int)]) -> Int {
        Set(plan.map { Self.cellName($0.settings) }).count
    }

    /// A planned run's key, as its server.csv row will write it (`ServerRunFiles.key`).
    static func key(_ settings: ImageServerScenario.Settings, run: Int) -> String {
        ServerRunFiles.key(ServerResult(settings, run: run, fixture: ""))
    }

    /// Every run, in order: runs innermost, then concurrency, so a cell's slope fills in early.
    var unshardedPlan: [(settings: ImageServerScenario.Settings, run: Int)] {
        var plan: [(ImageServerScenario.Settings, Int)] = []
        for route in routes {
            for strategy in route == .get ? strategies : [ImageRoute.noStrategy] {
                plan += cells(route: route, strategy: strategy)
            }
        }
        return plan
    }

    /// One route and strategy's runs, every renderer x allocator x render threads x concurrency.
    private func cells(route: ImageRoute, strategy: String) -> [(settings: ImageServerScenario.Settings, run: Int)] {
        var plan: [(ImageServerScenario.Settings, Int)] = []
        for render in renders {
            for allocator in allocators {
                for threads in renderThreads {
                    for concurrency in concurrencies {
                        for run in 1...runs {
                            var settings = template
                            settings.route = route
                            settings.strategy = strategy
                            settings.render = render
                            settings.allocator = allocator
                            settings.renderThreads = threads
                            settings.concurrency = concurrency
                            plan.append((settings, run))
                        }
                    }
                }
            }
        }
        return plan
    }

    /// settings.json's record: every setting that changes a figure.
    var settingsRecord: [(String, String)] {
        [
            ("strategies", strategies.joined(separator: ",")),
            ("renders", renders.map(\.rawValue).joined(separator: ",")),
            ("allocators", allocators.map(\.rawValue).joined(separator: ",")),
            ("routes", routes.map { $0 == .get ? $0.name : "\($0.name) \($0.bodyName)" }.joined(separator: ",")),
            ("concurrencies", concurrencies.map(String.init).joined(separator: ",")),
            ("render_threads", renderThreads.map { $0.map(String.init) ?? "unbounded" }.joined(separator: ",")),
            ("runs", String(runs)),
            ("requests", String(template.requests)),
            template.imagesFolder.map { ("images", $0.path) }
                ?? (
                    "fixture",
                    "\(template.fixture.width)x\(template.fixture.height) \(template.fixture.encoding.rawValue)"
                ),
            ("max_pixel", String(template.maxPixel)),
            ("client_cap", template.clientCapRaised ? "concurrency" : "default"),
            ("memory_limit_bytes", template.memoryLimitBytes.map(String.init) ?? "none"),
            ("memory_budget_bytes", template.memoryBudgetBytes.map(String.init) ?? "none"),
            ("workers", template.workers.map(String.init) ?? "none"),
            ("queue", template.queueLimit.map(String.init) ?? "\(ServerSpec.defaultQueuePerRequest)xC"),
            ("max_image_pixels", String(template.maxImagePixels)),
            ("--no-exact-heap", String(!exactHeap)),
            (
                TrialSpec.residencyEnvironmentVariable,
                (template.residencyOff ? TrialSettings.Residency.off : .on).rawValue
            ),
        ]
    }
}

/// The image server's measurement: each run in its own server child, its row appended to
/// server.csv and its requests to requests.csv as it ends, a line per run on stdout, and at the end
/// server-slopes.csv and each cell's memory per request in flight. Folder, lock, signals, rescue and
/// end are `Measurement`'s, as every measuring command's.
package struct ServerMeasurement {
    package let request: ServerRequest

    package init(_ request: ServerRequest) { self.request = request }

    package func run() throws {
        // Listening, SIGINT is how the measurement ends, not an interruption: the row is written and
        // the exit status is 0. (A second signal still kills the server.)
        let listening = request.listenPort != nil
        let measurement = try Measurement(
            .imageServer,
            request.output,
            settings: request.settingsRecord + (request.shard.map { [("shard", $0.description)] } ?? [])
                + (request.listenPort.map { [("listen", String($0))] } ?? []),
            stop: listening ? EndedBySignal() : request.stop
        )
        if listening { Interruption.install(wording: .listeningServer) }
        let plan = listening ? Array(request.plan.prefix(1)) : request.plan
        let keys = plan.map { ServerRequest.key($0.settings, run: $0.run) }
        try measurement.startShard(
            request.shard,
            .server,
            settings: Dictionary(request.settingsRecord, uniquingKeysWith: { first, _ in first }),
            portion: (request.cellCount(in: plan), request.cellCount(in: request.unshardedPlan), "cells"),
            planned: PlannedKeys(keys)
        )
        let done = try runsDone(measurement)
        let doneKeys = Set(done.keys)
        let schedule = zip(plan, keys).filter { !doneKeys.contains($0.1) }.map(\.0)
        if measurement.resuming {
            measurement.sayResuming(
                done: done.keys.count,
                planned: plan.count,
                toGo: schedule.count,
                unit: "server runs"
            )
            if schedule.isEmpty {
                printError(
                    "every planned run is already in \(measurement.url(of: OutputFiles.server).path); "
                        + "writing server-slopes.csv from it"
                )
            }
        }
        let sink = measurement.sink
        let runID = measurement.runID
        // server.csv last: a run is done once its row is there (`ServerRunFiles`).
        for file in ServerRunFiles.runFiles {
            sink.startRows(file.name, header: file.header, resuming: measurement.resuming)
        }
        sink.startRows(ServerCSV.fileName, header: ServerRunFiles.serverHeader, resuming: measurement.resuming)
        let stop = measurement.stop
        var results: [ServerResult] = []
        print(Self.header)
        for (settings, run) in schedule where !stop.requested {
            let result = try serve(settings, run: run, stop: stop)
            // A child killed because the run was interrupted is not a measurement: no row.
            if stop.requested && result.status != .ok { break }
            results.append(result)
            append(result, to: sink, runID: runID)
            print(Self.line(result))
            if result.status != .ok {
                printError(
                    "server run failed: \(Self.name(result.route, result.strategy))/\(result.render.rawValue)/C \(result.concurrency) run \(run): "
                        + "\(result.status.rawValue): \(result.error)"
                )
            }
        }
        sink.finishRows()
        let slopes = ServerSlope.of(done.points + results.compactMap(ServerPoint.init))
        let rows = done.keys.count + results.count
        var written = [measurement.url(of: OutputFiles.server), measurement.url(of: OutputFiles.requests)]
        if rows > 0 {
            written += sink.write(
                [
                    (ServerSlopesCSV.fileName, WrittenColumn.file(ServerSlopesCSV.columns, rows: slopes, runID: runID)),
                    Measurement.environmentFile,
                ],
                final: true
            )
            Self.printSlopes(slopes)
            if request.template.admission.gated {
                print(
                    "(a gated server: requests in flight wait for admission, so these lines are the gate's, not "
                        + "what a request costs; measure without --memory-budget and --workers for that)"
                )
            }
        }
        try measurement.end(
            rows: rows,
            planned: plan.count,
            written: rows == 0 ? [] : written,
            failed: done.failed > 0 || results.contains { $0.status != .ok },
            unit: "server runs"
        )
    }

    /// A run's rows: its requests, holders and residency, then its server.csv row.
    private func append(_ result: ServerResult, to sink: RescuingWriter, runID: String) {
        sink.append(
            RequestsCSV.fileName,
            lines: WrittenColumn.lines(RequestsCSV.columns, rows: RequestsCSV.rows(of: result), runID: runID)
        )
        sink.append(
            ServerHoldersCSV.fileName,
            lines: WrittenColumn.lines(ServerHoldersCSV.columns, rows: ServerHoldersCSV.rows(of: result), runID: runID)
        )
        sink.append(
            ServerResidencyCSV.fileName,
            lines: WrittenColumn.lines(
                ServerResidencyCSV.columns,
                rows: ServerResidencyCSV.rows(of: result),
                runID: runID
            )
        )
        sink.append(ServerCSV.fileName, lines: WrittenColumn.lines(ServerCSV.columns, rows: [result], runID: runID))
    }

    /// The runs an interrupted run left in its folder (none for a new run); the files beside
    /// server.csv lose the rows of runs it lacks, which are measured again. A row twice, a row of
    /// another run or of another version is refused (65).
    private func runsDone(_ measurement: Measurement) throws -> ServerRunFiles.Done {
        guard measurement.resuming else { return ServerRunFiles.Done() }
        do throws(ServerRunFiles.Failure) {
            let directory = measurement.folder.directory
            let done = try ServerRunFiles.done(in: directory, runID: measurement.runID)
            try ServerRunFiles.dropRunsNotIn(Set(done.keys), in: directory)
            return done
        } catch {
            throw BenchFailure(.badInput, "--resume: \(error)")
        }
    }

    private func serve(_ settings: ImageServerScenario.Settings, run: Int, stop: any StopRequest) throws -> ServerResult
    {
        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("bench-server-\(getpid())-\(UUID().uuidString.prefix(8))")
        Interruption.registerScratch(work)
        defer { Interruption.unregisterScratch(work) }
        do {
            let scenario = ImageServerScenario(
                settings: settings,
                launcher: ChildProcessLauncher(exactHeapPeak: request.exactHeap)
            )
            guard let port = request.listenPort else {
                return try scenario.run(run: run, workDirectory: work) { stop.requested }
            }
            return try scenario.listen(port: port, workDirectory: work, announce: Self.announce) {
                Interruption.requested
            }
        } catch {
            throw BenchFailure(.internalError, "cannot run the image server: \(error)")
        }
    }

    /// The line a load generator waits for, on stdout at once.
    @Sendable static func announce(_ line: String) {
        print(line)
        fflush(nil)  // every C stream: the global `stdout` is shared mutable state to Swift 6
    }

    /// A cell's first name on stdout: its strategy, or for POST the route and its body ("post file").
    static func name(_ route: ImageRoute, _ strategy: String) -> String {
        route == .get ? strategy : "\(route.name) \(route.bodyName)"
    }

    static let header =
        "strategy/render/allocator       C  threads   ok/sent  in-flight  peak heap Δ    peak RSS Δ     floor      req/s   p99"

    static func line(_ result: ServerResult) -> String {
        func megabytes(_ bytes: Int?) -> String {
            bytes.map { String(format: "%8.1f MB", Double($0) / 1e6) } ?? "       -   "
        }
        let cell = "\(Self.name(result.route, result.strategy))/\(result.render.rawValue)/\(result.allocator.rawValue)"
        return [
            cell.padding(toLength: 30, withPad: " ", startingAt: 0),
            String(format: "%3d", result.concurrency),
            (result.renderThreads.map(String.init) ?? "unbounded").leftPadded(to: 9),
            "\(result.requestsOK)/\(result.requests.count)".leftPadded(to: 9),
            String(result.report.maxInFlight).leftPadded(to: 10),
            megabytes(result.report.heapIsExact ? result.peakHeapDeltaBytes : nil),
            megabytes(result.peakRSSDeltaBytes),
            megabytes(result.floorBytes),
            (result.throughput.map { String(format: "%.1f", $0) } ?? "-").leftPadded(to: 9),
            result.latency(quantile: 0.99).map { String(format: "%.3f s", $0) } ?? "-",
            Self.gate(result),
            result.status == .ok ? "" : result.status.rawValue,
        ].joined(separator: " ")
    }

    /// What a gated server's admission did ("gate: 4 at once, queue p99 1.447 s, 0 x 503, 0 x 413"), or
    /// nothing for a server that admitted every request.
    static func gate(_ result: ServerResult) -> String {
        guard result.admission.gated, let admission = result.report.admission else { return "" }
        let queue = result.queueTime(quantile: 0.99).map { String(format: "%.3f s", $0) } ?? "-"
        let tooLarge = result.report.rejectedTooManyPixels + admission.rejectedOverBudget
        let overruns = result.report.overruns > 0 ? ", \(result.report.overruns) overruns" : ""
        return "gate: \(admission.mostAdmitted) at once, queue p99 \(queue), \(admission.rejectedQueueFull) x 503, "
            + "\(tooLarge) x 413\(overruns)"
    }

    /// Each cell's memory per request in flight, and what fits a container, on stdout.
    package static func printSlopes(_ slopes: [ServerSlope]) {
        for slope in slopes {
            let threads =
                slope.renderThreads == "unbounded" ? "a thread per render" : "\(slope.renderThreads) render threads"
            let route = slope.route == "get" ? slope.strategy : "\(slope.route) \(slope.body)"
            let cell = "\(route)/\(slope.render)/\(slope.allocator)/\(threads)"
            guard let heap = slope.heap else {
                print(
                    "\(cell): too few runs for a slope (\(slope.fitted) fitted of \(slope.runs); at least 3, at two "
                        + "concurrencies, at or above the render threads)"
                )
                continue
            }
            let fits = ServerSlope.containers.map { container in
                "\(slope.requestsFitting(container.bytes).map(String.init) ?? "?") in \(container.title)"
            }
            let floor = slope.floor.map { String(format: " (floor %.1f MB)", $0.fit.slope / 1e6) } ?? ""
            print(
                String(
                    format: "%@: %.1f MB of heap per request in flight [%.1f, %.1f]%@, %.1f MB at none; fit by RSS: %@",
                    cell,
                    heap.fit.slope / 1e6,
                    heap.slope.lowerBound / 1e6,
                    heap.slope.upperBound / 1e6,
                    floor,
                    heap.fit.intercept / 1e6,
                    fits.joined(separator: ", ")
                )
            )
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

/// The stop of a listening server's measurement: its SIGINT ends the window (the child reports), so the
/// measurement is never "interrupted".
private struct EndedBySignal: StopRequest {
    var requested: Bool { false }
    var signalName: String? { nil }
    var exitStatus: Int32 { 0 }
}
