import AsyncHTTPClient
import Foundation
import ImageMemoryBench
import NIOCore
import NIOFoundationCompat

/// AsyncHTTPClient's async API with the body collected in memory, as most callers write it:
/// `response.body.collect(upTo:)` into one ByteBuffer, then `Data(buffer:)` for the decoder.
struct CollectedBodyStrategy: ImageFetchStrategy {
    static let name = "ahc-collect"
    static let summary =
        "AsyncHTTPClient execute(_:timeout:), response.body.collect(upTo:) into one ByteBuffer, then Data(buffer:)"
    /// The body is handed over in memory: its floor is the body, once.
    static let floor = FetchFloor.bodyInMemory

    /// Refuse bodies over 1 GiB rather than exhaust memory: collect(upTo:) needs a limit.
    static let maximumBodyBytes = 1 << 30

    init(workDirectory: URL) {}

    func fetch(url: URL) async throws -> FetchOutcome {
        // Under the harness's own limit (--timeout, 60 s by default): AsyncHTTPClient retries a refused
        // connection until this deadline, and the row should carry its error, not the harness's kill.
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: url.absoluteString),
            timeout: .seconds(30)
        )
        let status = Int(response.status.code)
        guard (200...299).contains(status) else { throw FetchError.httpStatus(status) }
        let expected = response.headers.first(name: "content-length").flatMap { Int64($0) } ?? -1
        let body = try await response.body.collect(upTo: Self.maximumBodyBytes)
        if expected >= 0 && Int64(body.readableBytes) != expected {
            throw FetchError.lengthMismatch(expected: expected, received: body.readableBytes)
        }
        return FetchOutcome(payload: .memory(Data(buffer: body)), statusCode: status, expectedContentLength: expected)
    }
}
