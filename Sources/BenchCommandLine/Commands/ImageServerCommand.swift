import ArgumentParser
import BenchCore
import Foundation
import Harness
import ImageServer
import Imaging
import Measuring
import Scenarios
import Strategies

/// `bench scenario image-server`: a real HTTP server (Hummingbird) in the measured child, load from
/// the parent, memory per request in flight by strategy and stage.
struct ImageServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image-server",
        abstract: "Measure an image server under load: memory per request in flight, by strategy and stage.",
        discussion: """
            The measured child is a Hummingbird server on loopback. GET /image/fixture.jpg fetches the fixture \
            from the parent's loopback origin with --strategy (a strategy made per request, on a pool of C \
            threads), renders it with --render on --render-threads threads (or a thread per request: unbounded), \
            resizes it to --max-pixel and answers a JPEG (quality 80); with --render none it answers the fetched \
            bytes. With --route post, POST /image takes the fixture as the request's body instead (no fetch, \
            no strategy: its rows say strategy none), held as --body collect (in memory) or file (streamed to a \
            file, each chunk written before the next is read; the file goes before the answer), then renders and \
            answers alike. The parent warms the server up with C requests, opens its window, keeps exactly C requests in \
            flight until --requests have been answered, then ends it with SIGINT. Each run is a fresh server.

            server.csv has a row per cell and run (peaks over the warmed-up server's baseline, requests by stage \
            at the heap peak, the floor, throughput, latency); requests.csv every request; server-slopes.csv the \
            memory per request in flight and fixed cost across concurrencies, and what fits 512 MB, 1 GB, 2 GB.

            Exit status: 0 every run finished; 3 some failed; 64 bad input; 70 harness error; 73 the output \
            folder cannot be written; 74 writing failed during the run; 75 another run holds the folder; \
            130/143/129 interrupted (SIGINT/SIGTERM/SIGHUP).

            --resume goes on with an interrupted run in --out (the same settings), measuring only the runs server.csv \
            lacks; --shard i/n measures only part i of the cells (a cell whole, all its concurrencies and runs), and \
            `bench merge` joins the parts.

            --memory-budget admits a request only while its predicted cost (read from the image's header before \
            its body is held) fits what is left of the budget; --workers admits at most N at once. The rest wait \
            in a FIFO queue of --queue, past which a request is answered 503 with Retry-After; under a budget, an \
            image over --max-image-pixels (or costing more than the whole budget) is answered 413.

            With --listen PORT the server runs alone for load from outside: one cell (--concurrency is then the \
            fetch pool's width), measured from its start (no warm-up) until SIGINT, which writes its row; the \
            requests it answered are counted by the server, and requests.csv is empty.

            Examples:
              bench scenario image-server --strategy download --render stream --concurrency 1,4,16
              bench scenario image-server --strategy data,download --render full,stream --render-threads 2,unbounded
              bench scenario image-server --route get,post --body collect,file --render full,stream
              bench scenario image-server --strategy data --render full --concurrency 16,64 --memory-budget 512Mi
              bench scenario image-server --listen 8080 --strategy data --render full --concurrency 8
            """
    )

    @OptionGroup(title: "Matrix") var matrix: MatrixOptions<ImageServerCommand>

    @Option(
        parsing: .singleValue,
        help: ArgumentHelp(
            "The measured route: get (GET /image/NAME: the server fetches with --strategy) or post (POST /image: the "
                + "image is the request's body) (\(ListOption.forms)).",
            valueName: "route"
        )
    )
    var route = ["get"]

    @Option(
        parsing: .singleValue,
        help: ArgumentHelp(
            "How post holds the upload: collect (in memory) or file (streamed to a file) (\(ListOption.forms)); only "
                + "with --route post, whose cells it multiplies. (default: collect)",
            valueName: "body"
        )
    )
    var body: [String] = []

    @Option(
        parsing: .singleValue,
        help: "Requests kept in flight, each 1...64 (\(ListOption.forms)); also the fetch pool's threads."
    )
    var concurrency = ["1", "4", "16"]

    @Option(
        parsing: .singleValue,
        help: ArgumentHelp(
            "Render threads, each 1...64 or unbounded (a thread per request) (\(ListOption.forms)). "
                + "(default: the cores, \(ProcessInfo.processInfo.activeProcessorCount))",
            valueName: "threads"
        )
    )
    var renderThreads: [String] = []

    @Option(help: "Requests measured per run (after a warm-up of C), 1...100000.")
    var requests = 48

    @Option(
        help: ArgumentHelp(
            "The URLSession strategies' connections to one host: concurrency (raised to C, so C fetch at once) or "
                + "default (as shipped: \(StrategySession.shippedConnectionsPerHost) on Linux; the rest queue in libcurl).",
            valueName: "cap"
        )
    )
    var clientCap = ClientCap.concurrency

    @Option(help: "The answer's long side in pixels: a larger render is resized to it.")
    var maxPixel = 1024

    @Option(
        help: ArgumentHelp(
            "Serve for load from outside (wrk, k6, replayed traffic) on this loopback port (0: a free one): one cell, "
                + "measured from the server's start until SIGINT; prints 'listening on http://127.0.0.1:PORT'.",
            valueName: "port"
        )
    )
    var listen: Int?

    @Option(
        help: ArgumentHelp(
            "Seconds a run (start-up, warm-up, load, report) may take before it is a timeout; with --listen, how long "
                + "it may listen. (default: 300, with --listen 3600)",
            valueName: "seconds"
        )
    )
    var timeout: Double?

    @Option(
        help: ArgumentHelp(
            "A folder of images the origin serves instead of the fixture, by file name: request i asks for image i "
                + "mod n (files that are not images are left out).",
            valueName: "folder"
        )
    )
    var images: String?

    @Option(
        help: ArgumentHelp(
            "Hard limit on the server child's memory (RLIMIT_DATA: heap and private mappings, thread stacks "
                + "included), set as it starts, at least 256Mi, e.g. 8G (\(ByteSize.rule)); over it an allocation fails: a "
                + "request is answered 422 or the server dies, and the row says which.",
            valueName: "bytes"
        ),
        transform: {
            try ByteSize.parse($0, option: "--memory-limit", range: (256 << 20)...(1 << 40), example: "2Gi or 8G")
        }
    )
    var memoryLimit: Int?

    @Option(
        help: ArgumentHelp(
            "Admit a request only while its predicted cost (read from the image's header before its body is held: "
                + "docs/MEASUREMENT.md, predicted cost) fits what is left of this budget, e.g. 512Mi (\(ByteSize.rule)); "
                + "the rest wait in a FIFO queue of --queue, past it 503. Over --max-image-pixels, or costing more than "
                + "the whole budget: 413. (default: none)",
            valueName: "bytes"
        ),
        transform: {
            try ByteSize.parse($0, option: "--memory-budget", range: (1 << 20)...(1 << 40), example: "512Mi or 2G")
        }
    )
    var memoryBudget: Int?

    @Option(
        help: ArgumentHelp(
            "Handle at most this many image requests at once, 1...4096 (the usual limiter: imgproxy's workers, a "
                + "semaphore of N); the rest wait in the queue. With --memory-budget, both hold. (default: none)",
            valueName: "count"
        )
    )
    var workers: Int?

    @Option(
        help: ArgumentHelp(
            "Requests that may wait for admission under --memory-budget or --workers, 0...100000; past it a request "
                + "is answered 503 with Retry-After. (default: \(ServerSpec.defaultQueuePerRequest) x C)",
            valueName: "count"
        )
    )
    var queue: Int?

    @Option(
        help: ArgumentHelp(
            "Refuse images of more pixels than this: with --memory-budget, 413 from the header before the body is "
                + "held; otherwise the decoder refuses (422)."
        )
    )
    var maxImagePixels = DecodeBudget.defaultMaxImagePixels

    @Flag(
        help: ArgumentHelp(
            "Run the server with the malloc wrappers passing calls through uncounted (BENCH_EXACT_HEAP=off): no exact "
                + "heap peak; for measuring its cost under load."
        )
    )
    var noExactHeap = false

    @Option(
        help: ArgumentHelp(
            "'off': the server takes no residency snapshots (server-residency.csv has its header only), to measure "
                + "what they cost under load. Default: \(TrialSpec.residencyEnvironmentVariable) if set, else on.",
            valueName: "on|off"
        )
    )
    var residency: TrialSettings.Residency?

    @OptionGroup(title: "Fixture (the origin's image)") var fixture: FixtureOptions

    @OptionGroup var output: OutFolderOption<ImageServerCommand>
    @OptionGroup var replacing: ReplaceOption<ImageServerCommand>
    @OptionGroup(title: "Resuming") var resuming: ResumeOption
    @OptionGroup(title: "Sharding") var sharding: ShardOption

    func validate() throws {
        try resuming.validate(out: output.out, replace: replacing.replace)
        _ = try routes()
        _ = try concurrencies()
        _ = try renderThreadCounts()
        guard (1...100_000).contains(requests) else {
            throw ValidationError("--requests must be between 1 and 100000 (got \(requests))")
        }
        guard (16...16384).contains(maxPixel) else {
            throw ValidationError("--max-pixel must be between 16 and 16384 (got \(maxPixel))")
        }
        if let workers, !(1...4096).contains(workers) {
            throw ValidationError("--workers must be between 1 and 4096 (got \(workers))")
        }
        if let queue {
            guard (0...100_000).contains(queue) else {
                throw ValidationError("--queue must be between 0 and 100000 (got \(queue))")
            }
            guard memoryBudget != nil || workers != nil else {
                throw ValidationError(
                    "--queue is the admission queue's length: give it with --memory-budget or --workers"
                )
            }
        }
        try DecodeLimits.validate(maxPixel: maxPixel, maxImagePixels: maxImagePixels)
        if let timeout, !(timeout > 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be in (0, 86400] seconds (got \(timeout))")
        }
        if let images {
            do {
                _ = try ServedImages.load(folder: URL(fileURLWithPath: images))
            } catch {
                throw ValidationError(error.description)
            }
        }
        if let listen {
            guard (0...65535).contains(listen) else {
                throw ValidationError("--listen must be a port, 0...65535 (0: a free one) (got \(listen))")
            }
            let counts = [
                ("--strategy", matrix.strategyNames.count), ("--render", matrix.render.modes.count),
                ("--allocator", matrix.allocator.allocators.count), ("--concurrency", try concurrencies().count),
                ("--render-threads", try renderThreadCounts().count), ("--route/--body", try routes().count),
            ]
            if let (option, _) = counts.first(where: { $0.1 > 1 }) {
                throw ValidationError("--listen measures one cell: give one value of \(option)")
            }
            if resuming.resume || sharding.shard != nil {
                throw ValidationError(
                    "--listen measures until SIGINT: there is nothing to resume or shard; drop \(resuming.resume ? "--resume" : "--shard")"
                )
            }
        }
    }

    func run() throws {
        var template = ImageServerScenario.Settings(
            strategy: "download",
            render: .stream,
            concurrency: 1,
            renderThreads: nil,
            requests: requests,
            fixture: fixture.spec,
            fixtureCacheDirectory: fixture.cacheDirectory
        )
        template.maxPixel = maxPixel
        template.clientCapRaised = clientCap == .concurrency
        template.imagesFolder = images.map { URL(fileURLWithPath: $0) }
        template.memoryLimitBytes = memoryLimit
        template.timeoutSeconds = timeout ?? (listen == nil ? 300 : 3600)
        template.residencyOff = residency.map { $0 == .off } ?? TrialSettings.environmentResidencyIsOff
        template.memoryBudgetBytes = memoryBudget
        template.workers = workers
        template.queueLimit = queue
        template.maxImagePixels = maxImagePixels
        var request = ServerRequest(
            strategies: matrix.strategyNames,
            renders: matrix.render.modes,
            allocators: matrix.allocator.allocators,
            concurrencies: try concurrencies(),
            renderThreads: try renderThreadCounts(),
            runs: matrix.runs,
            template: template,
            output: MeasurementOutput(out: output.out, replacing: replacing.replace, resuming: resuming.resume)
        )
        request.shard = sharding.shard
        request.listenPort = listen
        request.exactHeap = !noExactHeap
        request.routes = try routes()
        try measuring { try ServerMeasurement(request).run() }
    }

    /// GET, then POST once per body.
    func routes() throws -> [ImageRoute] {
        let names = try ListOption.values(route, option: "--route", example: "get,post", choices: "get, post") {
            ["get", "post"].contains($0) ? $0 : nil
        }
        let bodies = try ListOption.values(
            body,
            option: "--body",
            example: "collect,file",
            choices: UploadBody.allCases.map(\.rawValue).joined(separator: ", "),
            UploadBody.init(rawValue:)
        )
        guard names.contains("post") || bodies.isEmpty else {
            throw ValidationError("--body says how POST /image holds its upload: give it with --route post")
        }
        return names.flatMap { name in
            name == "get" ? [ImageRoute.get] : (bodies.isEmpty ? [.collect] : bodies).map(ImageRoute.post)
        }
    }

    func concurrencies() throws -> [Int] {
        try ListOption.values(concurrency, option: "--concurrency", example: "1,4,16", choices: "whole numbers 1...64")
        {
            Int($0).flatMap { (1...64).contains($0) ? $0 : nil }
        }
    }

    /// nil: unbounded.
    func renderThreadCounts() throws -> [Int?] {
        guard !renderThreads.isEmpty else { return [ProcessInfo.processInfo.activeProcessorCount] }
        return try ListOption.values(
            renderThreads,
            option: "--render-threads",
            example: "2,unbounded",
            choices: "whole numbers 1...64, unbounded"
        ) { text -> Int?? in
            if text == "unbounded" { return .some(nil) }
            return Int(text).flatMap { (1...64).contains($0) ? .some($0) : nil }
        }
    }
}

/// `--client-cap`: what the URLSession strategies' per-host connection cap is in the server.
enum ClientCap: String, ExpressibleByArgument, CaseIterable {
    case concurrency
    case `default`
}

/// image-server's defaults for the shared options, and why.
extension ImageServerCommand: MatrixDefaults, OutDefaults, ReplaceDefaults {
    /// The article's two, each with its best renderer for a server.
    static let defaultStrategies = ["download"]
    static let strategyDefaultHelp = "download"
    static let takesCalibrationStrategies = false
    static let defaultRenders: [RenderMode] = [.stream]
    static let renderDefaultHelp = "stream"
    static let defaultAllocators: [Allocator] = [.system]
    static let allocatorDefaultHelp = "system"
    static let defaultRuns = 3
    static let maximumRuns = 100
    static let runsMeaning = "Runs per cell and concurrency, each a fresh server child"
    static let runsDefaultWhy =
        "3 by default: with three concurrencies that is 9 points a cell, enough for the slope's interval."
    static var outHelp: String { OutputFiles.outHelp(.imageServer) }
    static var replacedFiles: String { "an earlier image-server run's files" }
}
