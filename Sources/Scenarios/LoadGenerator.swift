import Foundation
import Strategies
import Synchronization

/// One request the load generator sent: its HTTP status (0 when no answer came), the answer's
/// bytes and the time from sending to the answer's last byte.
package struct RequestRecord: Codable, Sendable, Equatable {
    package var index: Int
    package var status: Int
    package var bytes: Int
    package var latencySeconds: Double
    package var error: String

    package init(index: Int, status: Int, bytes: Int, latencySeconds: Double, error: String = "") {
        self.index = index
        self.status = status
        self.bytes = bytes
        self.latencySeconds = latencySeconds
        self.error = error
    }
}

/// Load from outside the measured process: `concurrency` threads, each with its own libcurl handle
/// (a kept-alive connection), take the next request number until `count` have been sent, so that
/// exactly `concurrency` requests are in flight until the last ones. Each is a GET, or with `posting`
/// a POST of the bytes it gives for the request's number (`Data` the caller keeps, never copied). Loopback only (the URLs are
/// the child's); `stop` ends it early between requests.
package enum LoadGenerator {
    package static func run(
        count: Int,
        concurrency: Int,
        url: @escaping @Sendable (Int) -> URL,
        posting body: (@Sendable (Int) -> Data)? = nil,
        stop: @escaping @Sendable () -> Bool
    ) -> (records: [RequestRecord], seconds: Double) {
        let next = Atomic<Int>(0)
        let records = Mutex<[RequestRecord]>([])
        let done = DispatchGroup()
        let started = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<max(1, min(concurrency, count)) {
            done.enter()
            Thread {
                defer { done.leave() }
                let client = CurlMemoryStrategy(workDirectory: FileManager.default.temporaryDirectory)
                while !stop() {
                    let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard index < count else { return }
                    let record = send(index: index) { try client.fetch(url: url(index), posting: body?(index)) }
                    records.withLock { $0.append(record) }
                }
            }.start()
        }
        done.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return (records.withLock { $0 }.sorted { $0.index < $1.index }, seconds)
    }

    /// One GET, its status and bytes whether or not it succeeded.
    package static func send(index: Int, url: URL, with client: CurlMemoryStrategy) -> RequestRecord {
        send(index: index) { try client.fetch(url: url) }
    }

    /// One request, its status and bytes whether or not it succeeded.
    package static func send(index: Int, _ request: () throws -> FetchOutcome) -> RequestRecord {
        let start = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        do {
            let outcome = try request()
            return RequestRecord(
                index: index,
                status: outcome.statusCode,
                bytes: outcome.payload.byteCount,
                latencySeconds: elapsed()
            )
        } catch FetchError.httpStatus(let code) {
            return RequestRecord(index: index, status: code, bytes: 0, latencySeconds: elapsed())
        } catch {
            return RequestRecord(
                index: index,
                status: 0,
                bytes: 0,
                latencySeconds: elapsed(),
                error: String(describing: error)
            )
        }
    }
}
