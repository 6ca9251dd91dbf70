import BenchCore
import Foundation
import Harness
import Hummingbird
import Imaging
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import NIOPosix
import Probe
import Strategies
import Synchronization

/// The child side of `bench scenario image-server`: a Hummingbird server on loopback whose
/// `GET /image/NAME` fetches NAME from the parent's origin with a strategy made for the request (on
/// a pool of `fetchThreads` threads started before the window: the strategies block), renders it
/// on the render pool (or a thread of its own) and answers a JPEG (`ImageAnswer`); `POST /image`
/// takes the image as its body (held as `spec.upload` says) and renders and answers it alike. It
/// writes its port into its work folder, measures from `GET /_bench/window` until SIGINT, then reports.
package enum ImageServerChild {
    package static func run(_ spec: ServerSpec) -> ServerReport {
        var report = ServerReport()
        report.pid = getpid()
        do {
            try serve(spec, into: &report)
        } catch {
            report.status = .harnessError
            report.error = String(describing: error)
        }
        return report
    }

    private static func serve(_ spec: ServerSpec, into report: inout ServerReport) throws {
        let strategy = StrategyCatalog.strategy(named: spec.strategy)
        guard strategy != nil || spec.strategy == ImageRoute.noStrategy else {
            throw TrialError.unknownStrategy(spec.strategy, valid: StrategyCatalog.names)
        }
        if let cap = spec.clientCap { StrategySession.raiseConnectionsPerHost(to: cap) }
        report.clientConnectionsPerHost = StrategySession.connectionsPerHost
        let heap = try HeapCounters(expecting: spec.allocator)
        guard let renderer = RendererCatalog.renderer(named: spec.render.rawValue) else {
            throw TrialError.unknownRenderer(spec.render.rawValue, valid: RendererCatalog.names)
        }
        try renderer.init(limits: spec.renderLimits).warmUp(image: nil)
        let requestFiles = spec.workDirectory.appendingPathComponent("requests")
        try FileManager.default.createDirectory(at: requestFiles, withIntermediateDirectories: true)

        // SIGINT ends the window; it is waited for here, not taken by Hummingbird's service group.
        signal(SIGINT, SIG_IGN)
        let ended = DispatchSemaphore(value: 0)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { ended.signal() }
        interrupt.resume()

        let work = try RequestWork(spec: spec, strategy: strategy, renderer: renderer, files: requestFiles)
        let window = ServerWindow(spec: spec, heap: heap, work: work)
        let application = makeApplication(spec, work: work, window: window)
        let failure = Mutex<String?>(nil)
        Task {
            do { try await application.runService(gracefulShutdownSignals: []) } catch {
                failure.withLock { $0 = "the server stopped: \(error)" }
                ended.signal()
            }
        }
        ended.wait()
        if let message = failure.withLock({ $0 }) { throw ServerChildError(message) }
        try window.close(into: &report)
        (report.requestsAnswered, report.requestsFailed) = work.answered
    }

    private static func makeApplication(
        _ spec: ServerSpec,
        work: RequestWork,
        window: ServerWindow
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/image/:name") { request, context -> Response in
            let name = try context.parameters.require("name")
            // The query goes on to the origin: the loopback origin's faults (`?fault=status&code=500`).
            return try await work.answer(name: name, query: request.uri.query)
        }
        router.post("/image") { request, _ -> Response in
            try await work.answerUpload(
                request.body,
                declaredBytes: request.headers[.contentLength].flatMap { Int($0) }
            )
        }
        router.get("/calibration/:bytes") { request, context -> Response in
            try await work.holdCalibrationBlock(
                bytes: try context.parameters.require("bytes", as: Int.self),
                predictedBytes: request.uri.queryParameters.get("predicted", as: Int.self)
            )
        }
        router.get(RouterPath(ServerControl.windowPath)) { _, _ -> Response in
            try window.open()
            return Response(status: .noContent)
        }
        var logger = Logger(label: "image-server")
        logger.logLevel = .critical
        let gauges = work.gauges
        return Application(
            router: router,
            server: .http1(
                configuration: .init(additionalChannelHandlers: [StageCountingHandler(gauges: gauges)])
            ),
            configuration: .init(address: .hostname("127.0.0.1", port: spec.port)),
            onServerRunning: { channel in
                do {
                    // Listening for load from outside, the window is open before anyone can connect.
                    if spec.listening { try window.open() }
                    try ServerControl.writePort(channel.localAddress?.port ?? 0, in: spec.workDirectory)
                } catch {
                    StandardError.write("bench \(ServerSpec.subcommand): cannot start serving: \(error)\n")
                }
            },
            logger: logger
        )
    }
}

struct ServerChildError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One image request's work: fetch on the fetch pool (or receive the upload), render on the render
/// pool (or a thread of its own), each stage counted in the gauges; the request's files removed
/// before it answers.
final class RequestWork: Sendable {
    let spec: ServerSpec
    /// nil: the server fetches nothing (`ImageRoute.noStrategy`), its GET answers 404.
    let strategy: (any FetchStrategy.Type)?
    /// The spec's renderer, found in the catalog once.
    let renderer: any RenderStrategy.Type
    let files: URL
    let gauges = StageGauges()
    /// Admits requests by predicted cost and/or count; nil: every request at once.
    let gate: AdmissionGate?
    /// The prediction for this server's route, strategy and renderer (used with a budget).
    let cost: RequestCost
    private let refusals = Mutex(Refusals())
    private let fetchPool: NIOThreadPool
    private let renderPool: NIOThreadPool?
    private let counts = Mutex<(answered: Int, failed: Int)>((0, 0))

    init(spec: ServerSpec, strategy: (any FetchStrategy.Type)?, renderer: any RenderStrategy.Type, files: URL) throws {
        self.spec = spec
        self.strategy = strategy
        self.renderer = renderer
        self.files = files
        gate = spec.admissionLimits.map { AdmissionGate(limits: $0, clock: { MonotonicClock.now() }) }
        cost = RequestCost(
            holding: RequestCost.holding(strategy: strategy, upload: spec.upload),
            renderer: renderer.name,
            maxPixel: spec.maxPixel,
            allocator: spec.allocator
        )
        fetchPool = NIOThreadPool(numberOfThreads: max(1, spec.fetchThreads))
        fetchPool.start()
        renderPool = spec.renderThreads.map { NIOThreadPool(numberOfThreads: max(1, $0)) }
        renderPool?.start()
    }

    /// Image requests answered, and those answered with an error, since `restartCounts()`.
    var answered: (Int, Int) { counts.withLock { ($0.answered, $0.failed) } }

    /// Starts the counts again: the window counts its own requests, not the warm-up's.
    func restartCounts() {
        counts.withLock { $0 = (0, 0) }
        refusals.withLock { $0 = Refusals() }
        gate?.restartStatistics()
        busy.restart()
    }

    /// Requests refused before their body was held, and those that held more than they reserved.
    struct Refusals {
        var tooManyPixels = 0
        var overruns = 0
        var overrunNames: [String] = []
        /// Overruns named in the report at most; the rest are counted.
        static let namedAtMost = 20
    }

    /// What the gate and the prediction did in the window, into the report.
    func reportAdmission(into report: inout ServerReport) {
        report.admission = gate?.statistics
        refusals.withLock {
            report.rejectedTooManyPixels = $0.tooManyPixels
            report.overruns = $0.overruns
            report.overrunNames = $0.overrunNames
        }
    }

    /// From the first image request's arrival to the last one's end since `restartCounts()`.
    let busy = BusyPeriod()

    /// `GET /image/NAME`: the image fetched from the origin.
    func answer(name: String, query: String? = nil) async throws -> Response {
        try await answering(what: name) {
            let (strategy, url) = try self.origin(name: name, query: query)
            let admitted = try await self.admitFetch(of: url, name: name)
            return (try await self.fetch(url, name: name, with: strategy), admitted)
        }
    }

    /// `POST /image`: the image is the request's body, held as `spec.upload` says.
    func answerUpload(_ body: RequestBody, declaredBytes: Int?) async throws -> Response {
        try await answering(what: "the upload") { try await self.receive(body, declaredBytes: declaredBytes) }
    }

    /// The request in flight and counted: its image got by `payload` (admitted when there is a gate),
    /// rendered, answered. The reservation goes with the answer's body: it is given back once the
    /// answer is written, or dropped with its connection.
    private func answering(
        what: String,
        _ payload: () async throws -> (Payload, Admitted?)
    ) async throws -> Response {
        gauges.enter(.inFlight)
        busy.started()
        defer {
            gauges.leave(.inFlight)
            busy.ended()
        }
        do {
            let (received, admitted) = try await payload()
            if let admitted { checkOverrun(admitted, received: received, what: what) }
            let answer = try await render(received, what: what)
            counts.withLock { $0.answered += 1 }
            let buffer = ByteBuffer(bytes: answer.bytes)
            let reservation = admitted?.reservation
            return Response(
                status: .ok,
                headers: [.contentType: answer.contentType],
                body: ResponseBody(contentLength: buffer.readableBytes) { writer in
                    try await writer.write(buffer)
                    try await writer.finish(nil)
                    reservation?.release()
                }
            )
        } catch {
            counts.withLock {
                $0.answered += 1
                $0.failed += 1
            }
            throw error
        }
    }

    /// The strategy that fetches image `name`, and its URL at the origin, its query passed on.
    private func origin(name: String, query: String?) throws -> (any FetchStrategy.Type, URL) {
        guard let strategy else {
            throw HTTPError(.notFound, message: "this server fetches nothing: its route is POST /image")
        }
        guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else {
            throw HTTPError(.badRequest, message: "bad image name '\(name)'")
        }
        // Only a query of RFC 3986's characters is passed on: Foundation traps on setting any other.
        if let query, !Self.isValidQuery(query) {
            throw HTTPError(.badRequest, message: "the query has a character a URL's query may not hold")
        }
        var components = URLComponents(url: spec.originURL.appendingPathComponent(name), resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = query
        guard let url = components?.url else { throw HTTPError(.badRequest, message: "bad query '\(query ?? "")'") }
        return (strategy, url)
    }

    private func fetch(_ url: URL, name: String, with strategy: any FetchStrategy.Type) async throws -> Payload {
        let files = self.files
        gauges.enter(.fetching)
        defer { gauges.leave(.fetching) }
        do {
            return try await fetchPool.runIfActive { try strategy.init(workDirectory: files).fetch(url: url) }.payload
        } catch let error as FetchError {
            throw HTTPError(.badGateway, message: "cannot fetch \(name): \(error)")
        }
    }

    /// Receiving the upload is this route's fetch: it counts as fetching. With a gate, the body's
    /// first bytes are read until its header is, the request admitted by its cost, then the rest held.
    private func receive(_ body: RequestBody, declaredBytes: Int?) async throws -> (Payload, Admitted?) {
        var chunks = body.makeAsyncIterator()
        var head = ByteBuffer()
        let admitted = try await admitUpload(from: &chunks, head: &head, declaredBytes: declaredBytes)
        gauges.enter(.fetching)
        defer { gauges.leave(.fetching) }
        switch spec.upload {
        case .collect:
            var buffer = head
            while let chunk = try await chunks.next() {
                guard buffer.readableBytes + chunk.readableBytes <= spec.maxUploadBytes else {
                    throw HTTPError(.contentTooLarge, message: "an upload is at most \(spec.maxUploadBytes) bytes")
                }
                buffer.writeImmutableBuffer(chunk)
            }
            // The Data holds the collected buffer's storage: no second copy of the body.
            return (.memory(Data(buffer: buffer, byteTransferStrategy: .noCopy)), admitted)
        case .file:
            return (.file(try await receiveToFile(head: head, rest: &chunks)), admitted)
        }
    }

    /// The body streamed to a fresh file in the requests folder: each chunk is written (on the
    /// fetch pool: write(2) blocks) before the next is asked for, so the body waits in the socket,
    /// not in memory. The file goes if the upload does not finish (a client gone, too large).
    private func receiveToFile(head: ByteBuffer, rest body: inout RequestBody.AsyncIterator) async throws -> URL {
        let file = files.appendingPathComponent(UUID().uuidString + ".upload")
        let descriptor: Int32
        do { descriptor = try createFile(file) } catch {
            throw HTTPError(.internalServerError, message: "cannot store the upload: \(error)")
        }
        do {
            defer { close(descriptor) }
            var received = 0
            var pending: ByteBuffer? = head.readableBytes > 0 ? head : nil
            while true {
                let next: ByteBuffer?
                if let first = pending.take() { next = first } else { next = try await body.next() }
                guard let chunk = next else { break }
                received += chunk.readableBytes
                guard received <= spec.maxUploadBytes else {
                    throw HTTPError(.contentTooLarge, message: "an upload is at most \(spec.maxUploadBytes) bytes")
                }
                // errno is the pool thread's: it comes back with the result.
                let failure = try await fetchPool.runIfActive {
                    chunk.withUnsafeReadableBytes { writeAll(descriptor, $0) } ? 0 : errno
                }
                guard failure == 0 else {
                    throw HTTPError(
                        .internalServerError,
                        message: "cannot store the upload: \(String(cString: strerror(failure)))"
                    )
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        return file
    }

    /// What both routes do with the image: wait for a render thread, render, and remove the
    /// request's file (a download or an upload) whatever happens, before the answer is sent.
    private func render(_ payload: Payload, what: String) async throws -> ImageAnswer {
        gauges.enter(.waitingToRender)
        let (spec, gauges, renderer) = (self.spec, self.gauges, self.renderer)
        // Whatever happens to the render (a pool that never runs it included), the wait ends and the
        // request's file goes when the request does.
        let started = Atomic<Bool>(false)
        defer {
            if !started.load(ordering: .acquiring) { gauges.leave(.waitingToRender) }
            if case .file(let file) = payload { try? FileManager.default.removeItem(at: file) }
        }
        let render: @Sendable () throws -> ImageAnswer = {
            started.store(true, ordering: .releasing)
            gauges.leave(.waitingToRender)
            gauges.enter(.rendering)
            defer { gauges.leave(.rendering) }
            return try ImageAnswer.make(
                from: payload,
                renderer: renderer,
                limits: spec.renderLimits,
                quality: spec.answerQuality
            )
        }
        do {
            return try await onRenderThread(render)
        } catch let error as ImagingError {
            throw HTTPError(.unprocessableContent, message: "cannot render \(what): \(error)")
        }
    }

    /// The known answer for the memory per request in flight: a block of `bytes`, every page written,
    /// held on a fetch thread for `ServerControl.calibrationHoldMillis` ms, then freed; the answer is empty.
    /// With a gate it is admitted at `predictedBytes` (default: the block and a request's fixed share),
    /// so a prediction below what it holds is an overrun the report names.
    func holdCalibrationBlock(bytes: Int, predictedBytes: Int?) async throws -> Response {
        gauges.enter(.inFlight)
        defer { gauges.leave(.inFlight) }
        guard (1...(1 << 30)).contains(bytes) else {
            throw HTTPError(.badRequest, message: "a calibration block is 1 byte to 1 GiB (got \(bytes))")
        }
        let holds = bytes + RequestCost.perRequestBytes
        let admitted = try await admit(costBytes: predictedBytes ?? holds, name: "calibration \(bytes)")
        if let admitted, holds > admitted.reservation.costBytes {
            countOverrun(name: admitted.name, reserved: admitted.reservation.costBytes, held: holds)
        }
        try await fetchPool.runIfActive { try Self.holdBlock(bytes: bytes) }
        admitted?.reservation.release()
        counts.withLock { $0.answered += 1 }
        return Response(status: .ok)
    }

    // MARK: Admission

    /// A request admitted by the gate: its reservation, and what it was predicted from.
    struct Admitted: Sendable {
        var reservation: Reservation
        var name: String
        var predictedFrom: RequestCost.Image?
    }

    /// Reserves `costBytes` for a request (nil without a gate); a refusal is its HTTP answer.
    /// `assumed`: what the prediction had to assume (a size the request did not give), for a refusal's message.
    private func admit(
        costBytes: Int,
        name: String,
        image: RequestCost.Image? = nil,
        assumed: String? = nil
    ) async throws -> Admitted? {
        guard let gate else { return nil }
        do {
            let reservation = try await gate.admit(costBytes: costBytes)
            return Admitted(reservation: reservation, name: name, predictedFrom: image)
        } catch let refusal as AdmissionGate.Refusal {
            switch refusal {
            case .queueFull(let limit):
                throw HTTPError(
                    .serviceUnavailable,
                    headers: [.retryAfter: String(ServerControl.retryAfterSeconds)],
                    message: "the server is full: \(limit) requests wait already (--queue)"
                )
            case .overBudget(let cost, let budget):
                throw HTTPError(
                    .contentTooLarge,
                    message: "\(name) would hold \(cost) bytes, more than the whole --memory-budget (\(budget) bytes)"
                        + (assumed.map { "; \($0)" } ?? "")
                )
            case .cancelled:
                throw CancellationError()
            }
        }
    }

    /// With a budget, GET's image header read from the origin with ranged requests, the request's
    /// cost predicted from it, and the request admitted; without a budget, admitted by count alone.
    private func admitFetch(of url: URL, name: String) async throws -> Admitted? {
        guard gate != nil else { return nil }
        guard spec.memoryBudgetBytes != nil else { return try await admit(costBytes: 0, name: name) }
        let header: OriginHeader.Answer
        do {
            header = try await fetchPool.runIfActive { try OriginHeader.read(url) }
        } catch let error as FetchError {
            throw HTTPError(.badGateway, message: "cannot read the header of \(name): \(error)")
        } catch let error as ImagingError {
            throw HTTPError(.unprocessableContent, message: "cannot render \(name): \(error)")
        }
        let image = try predictedImage(header.info, bodyBytes: header.totalBytes, name: name)
        return try await admit(
            costBytes: cost.bytes(for: image),
            name: name,
            image: image,
            assumed: assumption(header: header.info, bodyBytes: header.totalBytes, whose: "the origin gave none")
        )
    }

    /// With a budget, the upload's first bytes read until its header is (at most `uploadHeadBytes`),
    /// its cost predicted from that and its Content-Length, and the request admitted.
    private func admitUpload(
        from chunks: inout RequestBody.AsyncIterator,
        head: inout ByteBuffer,
        declaredBytes: Int?
    ) async throws -> Admitted? {
        guard gate != nil else { return nil }
        guard spec.memoryBudgetBytes != nil else { return try await admit(costBytes: 0, name: "the upload") }
        var info: ImageInfo?
        var problem: (any Error)?
        while info == nil, head.readableBytes < RequestCost.uploadHeadBytes, let chunk = try await chunks.next() {
            head.writeImmutableBuffer(chunk)
            do { info = try ImageInspector.inspect(Data(buffer: head, byteTransferStrategy: .noCopy)) } catch {
                problem = error
            }
        }
        if info == nil, let problem, head.readableBytes < RequestCost.uploadHeadBytes {
            // The whole body is in: its header is broken, or it is no image of ours.
            throw HTTPError(.unprocessableContent, message: "cannot render the upload: \(problem)")
        }
        let image = try predictedImage(info, bodyBytes: declaredBytes, name: "the upload")
        return try await admit(
            costBytes: cost.bytes(for: image),
            name: "the upload",
            image: image,
            assumed: assumption(header: info, bodyBytes: declaredBytes, whose: "the upload has no Content-Length")
        )
    }

    /// What the prediction is made of: the header's size and the body's, or the worst case the limits
    /// allow where either is unknown. Over `--max-image-pixels`: 413, naming it.
    private func predictedImage(_ info: ImageInfo?, bodyBytes: Int?, name: String) throws -> RequestCost.Image {
        if let info, info.width * info.height > spec.maxImagePixels {
            refusals.withLock { $0.tooManyPixels += 1 }
            throw HTTPError(
                .contentTooLarge,
                message:
                    "\(name) is \(info.width)x\(info.height) pixels, more than --max-image-pixels (\(spec.maxImagePixels))"
            )
        }
        let side = Int(Double(spec.maxImagePixels).squareRoot())
        return RequestCost.Image(
            format: info?.format,
            width: info?.width ?? side,
            height: info?.height ?? side,
            bodyBytes: bodyBytes ?? spec.maxUploadBytes
        )
    }

    /// What the prediction assumed for lack of a size: nil when the header and the body's size were known.
    private func assumption(header: ImageInfo?, bodyBytes: Int?, whose: String) -> String? {
        var parts: [String] = []
        if bodyBytes == nil {
            parts.append(
                "its size is unknown (\(whose)), so the largest body, \(spec.maxUploadBytes) bytes, was assumed"
            )
        }
        if header == nil {
            parts.append(
                "its header could not be read first, so --max-image-pixels (\(spec.maxImagePixels)) was assumed"
            )
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The cost recomputed from the body as received: more than was reserved is an overrun.
    private func checkOverrun(_ admitted: Admitted, received: Payload, what: String) {
        guard var image = admitted.predictedFrom else { return }
        image.bodyBytes = received.byteCount
        let held = cost.bytes(for: image)
        if held > admitted.reservation.costBytes {
            countOverrun(name: what, reserved: admitted.reservation.costBytes, held: held)
        }
    }

    private func countOverrun(name: String, reserved: Int, held: Int) {
        refusals.withLock {
            $0.overruns += 1
            if $0.overrunNames.count < Refusals.namedAtMost {
                $0.overrunNames.append("\(name): reserved \(reserved) bytes, held \(held)")
            }
        }
    }

    /// The sum of the held blocks' addresses: pointers that escape to a global keep the optimizer
    /// from removing a malloc, memset and free whose memory is never read (as CalibrationSpikeStrategy).
    private static let heldBlocks = Atomic<UInt>(0)

    @_optimize(none)
    private static func holdBlock(bytes: Int) throws {
        guard let block = malloc(bytes) else { throw HTTPError(.internalServerError, message: "malloc failed") }
        heldBlocks.wrappingAdd(UInt(bitPattern: block), ordering: .relaxed)
        memset(block, 0x5a, bytes)
        usleep(ServerControl.calibrationHoldMillis * 1000)
        heldBlocks.wrappingSubtract(UInt(bitPattern: block), ordering: .relaxed)
        free(block)
    }

    /// A query's characters (RFC 3986): unreserved, sub-delims, ":", "@", "/", "?" and "%" of pct-encoded.
    static let queryCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%"
    )

    /// Whether `query` is RFC 3986's: those characters, and each "%" followed by two hex digits.
    static func isValidQuery(_ query: String) -> Bool {
        let scalars = Array(query.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            guard queryCharacters.contains(scalar) else { return false }
            if scalar == "%" {
                guard index + 2 < scalars.count,
                    scalars[index + 1].properties.isASCIIHexDigit, scalars[index + 2].properties.isASCIIHexDigit
                else { return false }
            }
        }
        return true
    }

    /// On the render pool, or on a thread of its own when there is none (every decode at once).
    private func onRenderThread(_ body: @escaping @Sendable () throws -> ImageAnswer) async throws -> ImageAnswer {
        if let renderPool { return try await renderPool.runIfActive(body) }
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}

/// The measured window of the server: opened once by the parent's control request, closed after
/// SIGINT. One lock: the control route and the closing thread may meet.
final class ServerWindow: Sendable {
    private let spec: ServerSpec
    private let heap: HeapCounters
    private let exactHeap = ExactHeapPeak()
    private let work: RequestWork
    private var gauges: StageGauges { work.gauges }
    private let state = Mutex<OpenWindow?>(nil)

    private struct OpenWindow {
        var window: MeasurementWindow
        var watcher: StageWatcher
    }

    init(spec: ServerSpec, heap: HeapCounters, work: RequestWork) {
        self.spec = spec
        self.heap = heap
        self.work = work
        // From before the warm-up, as a trial's: a block the warm-up left and still live at the peak is named too.
        if recordsHolders {
            PeakBlocks.start(thresholdBytes: spec.holderThresholdBytes, tableCapacity: spec.holderTableCapacity)
        }
    }

    private var recordsHolders: Bool { exactHeap != nil && spec.holderThresholdBytes > 0 }

    func open() throws {
        try state.withLock { open in
            guard open == nil else { throw HTTPError(.conflict, message: "the window is already open") }
            let residency = spec.residencyOff ? nil : try ResidencyProbe(heap: heap, exactHeap: exactHeap)
            let window = try MeasurementWindow(
                heap: heap,
                exactHeap: exactHeap,
                intervalNanos: spec.sampleIntervalNanos,
                maximumDurationSeconds: spec.timeoutSeconds,
                residency: residency
            )
            gauges.restartMost()
            work.restartCounts()
            let (exactHeap, heap) = (self.exactHeap, self.heap)
            let watcher = StageWatcher(
                gauges: gauges,
                liveHeap: { exactHeap?.read().live ?? heap.read().allocated },
                intervalNanos: spec.sampleIntervalNanos
            )
            open = OpenWindow(window: window, watcher: watcher)
        }
    }

    func close(into report: inout ServerReport) throws {
        guard let open = state.withLock({ $0.take() }) else {
            throw ServerChildError("SIGINT came before the window was opened (GET \(ServerControl.windowPath))")
        }
        let stages = open.watcher.stop()
        let readings = open.window.close(workEnded: MonotonicClock.now(), settle: spec.settleRule)
        report.baselineRSSBytes = readings.baseline.residentBytes
        report.peakRSSBytes = readings.peakResidentBytes
        report.finalRSSBytes = readings.final.residentBytes
        report.baselineHeapBytes = readings.exactBaseline ?? readings.baseline.allocatedBytes
        report.peakHeapBytes = readings.peakHeapBytes
        report.heapIsExact = readings.exactPeak != nil
        report.finalHeapBytes = readings.final.allocatedBytes
        report.windowSeconds = Double(readings.final.time - readings.baseline.time) / 1e9
        report.maxInFlight = gauges.maxInFlight
        report.busySeconds = work.busy.seconds
        report.stagesAtHeapPeak = stages.atHeapPeak
        report.stageMaxima = stages.maxima
        work.reportAdmission(into: &report)
        if let residency = readings.residency {
            report.residency = residency.rows
            report.residencySnapshots = residency.snapshots
            report.residencySeconds = Double(residency.nanos) / 1e9
        }
        if recordsHolders {
            let held = PeakBlocks.atPeak(windowStart: readings.baseline.time)
            (report.peakBlocks, report.holdersDropped) = (held.blocks, held.dropped)
        }
    }
}

/// The time the server was busy with requests: from the first one's arrival to the last one's end
/// (the window's idle edges left out: with load from outside, the throughput's denominator).
final class BusyPeriod: Sendable {
    private let first = Atomic<Int>(0)
    private let last = Atomic<Int>(0)

    func started() {
        _ = first.compareExchange(expected: 0, desired: Int(MonotonicClock.now()), ordering: .relaxed)
    }

    func ended() { last.raise(to: Int(MonotonicClock.now())) }

    func restart() {
        first.store(0, ordering: .relaxed)
        last.store(0, ordering: .relaxed)
    }

    /// nil before a request has ended.
    var seconds: Double? {
        let (start, end) = (first.load(ordering: .relaxed), last.load(ordering: .relaxed))
        return start > 0 && end > start ? Double(end - start) / 1e9 : nil
    }
}
