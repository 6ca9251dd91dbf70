import Foundation
import Harness
import Imaging
import Strategies
import Synchronization

#if canImport(FoundationNetworking)
import BenchCore
import FoundationNetworking
#endif

/// Fetches and decodes row images with at most `maxConcurrent` requests in progress, as an
/// OperationQueue with maxConcurrentOperationCount would: a request holds its slot from the
/// start of its transfer until its image is decoded (or its cancelled task has reported back).
/// Cancelling a waiting row drops it; cancelling a running one cancels its URLSession task.
package final class RowLoader: Sendable {
    package struct Counters: Sendable {
        package var started = 0, completed = 0, cancelled = 0, failed = 0
        /// Requests started again after a failure (each is also counted in `started`).
        package var retried = 0
        package var bytesDelivered = 0
        /// Partial downloads of cancelled tasks that FoundationNetworking left in TMPDIR, removed by us.
        package var orphanedFilesRemoved = 0
    }

    /// Called on a background queue with the row's image (nil for render `none`), or the error
    /// that remained after every retry (the row then shows a fallback placeholder).
    package typealias Delivery = @Sendable (_ row: Int, _ image: Result<DecodedImage?, Error>) -> Void

    private let strategy: ScrollStrategy
    private let render: RenderMode
    private let maxPixel: Int
    private let maxImagePixels: Int
    private let maxConcurrent: Int
    private let retries: Int
    private let session: URLSession
    private let deliver: Delivery
    private let decodeQueue = DispatchQueue(label: "row-decode", attributes: .concurrent)

    private struct State {
        var waiting: [(row: Int, url: URL, attempt: Int)] = []
        /// Row to its running request; the id tells a re-requested row from its cancelled predecessor.
        var running: [Int: (id: Int, task: URLSessionTask)] = [:]
        var slotsInUse = 0
        var counters = Counters()
    }
    private let state = Mutex(State())

    package init(
        strategy: ScrollStrategy,
        render: RenderMode,
        maxPixel: Int,
        maxConcurrent: Int,
        retries: Int = 0,
        maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels,
        deliver: @escaping Delivery
    ) {
        self.maxImagePixels = maxImagePixels
        self.retries = retries
        self.strategy = strategy
        self.render = render
        self.maxPixel = maxPixel
        self.maxConcurrent = maxConcurrent
        self.deliver = deliver
        let configuration = URLSessionConfiguration.default
        // The cap is ours; the session's own per-host limit (6 by default) must not hide it.
        configuration.httpMaximumConnectionsPerHost = max(maxConcurrent, 1)
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    package var snapshot: Counters { state.withLock { $0.counters } }

    /// Fetches `url` once outside any measurement, so the session and decoder are set up.
    package func warmUp(url: URL) throws {
        let warmed = BlockingCompletion<DecodedImage?>()
        makeTask(url: url) { warmed.finish($0) }.resume()
        _ = try warmed.wait()
        try Renderer.warmUp(mode: render)
        state.withLock { $0.counters = Counters() }
    }

    package func request(row: Int, url: URL) {
        state.withLock { $0.waiting.append((row, url, 0)) }
        startWaiting()
    }

    package func cancel(row: Int) {
        let task: URLSessionTask? = state.withLock { state in
            state.waiting.removeAll { $0.row == row }
            guard let running = state.running.removeValue(forKey: row) else { return nil }
            state.counters.cancelled += 1
            return running.task
        }
        // A finished transfer may be decoding: cancel() is then a no-op and the image is dropped.
        task?.cancel()
    }

    private func startWaiting() {
        while true {
            let task: URLSessionTask? = state.withLock { state in
                guard state.slotsInUse < maxConcurrent, !state.waiting.isEmpty else { return nil }
                let next = state.waiting.removeFirst()
                state.slotsInUse += 1
                state.counters.started += 1
                let id = state.counters.started
                let task = makeTask(url: next.url) { [self] result in finish(next, id: id, result) }
                state.running[next.row] = (id, task)  // before resume, so the completion always finds it
                return task
            }
            guard let task else { return }
            task.resume()
        }
    }

    /// Makes the (not yet resumed) transfer; `completion` gets the decoded image, or the error, once.
    private func makeTask(
        url: URL,
        completion: @escaping @Sendable (Result<DecodedImage?, Error>) -> Void
    ) -> URLSessionTask {
        let render = self.render
        let maxPixel = self.maxPixel
        let maxImagePixels = self.maxImagePixels
        let decodeQueue = self.decodeQueue
        // Decoding leaves the session's (serial) delegate queue, as an app decodes off the main thread.
        let decode: @Sendable (Payload, Int) -> Void = { [weak self] payload, bytes in
            self?.state.withLock { $0.counters.bytesDelivered += bytes }
            decodeQueue.async {
                defer { if case .file(let file) = payload { try? FileManager.default.removeItem(at: file) } }
                completion(
                    Result {
                        try Renderer.render(payload, mode: render, maxPixel: maxPixel, maxImagePixels: maxImagePixels)
                    }
                )
            }
        }
        switch strategy {
        case .data:
            return session.dataTask(with: url) { data, response, error in
                do {
                    let http = try validateResponse(response, error: error)
                    let body = data ?? Data()
                    try checkLength(of: body.count, against: http)
                    decode(.memory(body), body.count)
                } catch {
                    completion(.failure(error))
                }
            }
        case .download:
            return session.downloadTask(with: url) { file, response, error in
                do {
                    // FoundationNetworking never deletes its temporary file: on failure remove it here.
                    guard error == nil, let file else {
                        if let file { try? FileManager.default.removeItem(at: file) }
                        if let error { throw FetchError.transport(TransportFailure(urlSessionError: error)) }
                        throw FetchError.storage("no file")
                    }
                    let http: HTTPURLResponse
                    do { http = try validateResponse(response, error: nil) } catch {
                        try? FileManager.default.removeItem(at: file)
                        throw error
                    }
                    let payload = Payload.file(file)
                    let size = payload.byteCount
                    do { try checkLength(of: size, against: http) } catch {
                        try? FileManager.default.removeItem(at: file)
                        throw error
                    }
                    decode(payload, size)
                } catch {
                    completion(.failure(error))
                }
            }
        }
    }

    /// A failed request goes back to the front of the queue while it has retries left (as
    /// Combine's `retry(n)` resubscribes at once); after the last one the row gets its fallback.
    private func finish(_ request: (row: Int, url: URL, attempt: Int), id: Int, _ result: Result<DecodedImage?, Error>)
    {
        let delivery: Result<DecodedImage?, Error>? = state.withLock { state in
            state.slotsInUse -= 1
            guard state.running[request.row]?.id == id else { return nil }  // cancelled meanwhile
            state.running[request.row] = nil
            switch result {
            case .success:
                state.counters.completed += 1
                return result
            case .failure where request.attempt < retries:
                state.counters.retried += 1
                state.waiting.insert((request.row, request.url, request.attempt + 1), at: 0)
                return nil
            case .failure:
                state.counters.failed += 1
                return result
            }
        }
        if let delivery { deliver(request.row, delivery) }
        startWaiting()
        removeOrphanedDownloads()
    }

    /// True when nothing waits and every started request has reported back.
    package var isIdle: Bool { state.withLock { $0.slotsInUse == 0 && $0.waiting.isEmpty } }

    /// A cancelled download task reports no file, and FoundationNetworking never deletes its
    /// partial `<UUID>.tmp` in TMPDIR. When no request is in progress no task owns a temporary
    /// file, so every one left is an orphan. Under the lock: no task can start meanwhile.
    private func removeOrphanedDownloads() {
        guard strategy == .download else { return }
        state.withLock { state in
            guard state.slotsInUse == 0 else { return }
            let folder = FileManager.default.temporaryDirectory
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names where name.hasSuffix(".tmp") {
                if (try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))) != nil {
                    state.counters.orphanedFilesRemoved += 1
                }
            }
        }
    }
}
