import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The article's first code path: `URLSession.dataTask(with:)`, whose completion handler
/// receives the whole body as one `Data`.
public final class DataTaskStrategy: FetchStrategy {
    public static let name = "data"
    public static let summary = "URLSession data task; the completion handler gets the whole body as Data (the article's first case)"

    private let session = URLSession.shared

    public init(workDirectory: URL) {}

    public func fetch(url: URL) throws -> FetchOutcome {
        let completion = BlockingCompletion<FetchOutcome>()
        session.dataTask(with: url) { data, response, error in
            completion.finish(Result {
                let http = try validateResponse(response, error: error)
                let body = data ?? Data()
                try checkLength(of: body.count, against: http)
                return FetchOutcome(payload: .memory(body), statusCode: http.statusCode,
                                    expectedContentLength: http.expectedContentLength)
            })
        }.resume()
        return try completion.wait()
    }
}

/// The article's second code path: `URLSession.downloadTask(with:)` streams the body to a
/// temporary file, which is moved (under a fresh UUID name) before the handler returns.
public final class DownloadTaskStrategy: FetchStrategy {
    public static let name = "download"
    public static let summary = "URLSession download task; the body streams to a temporary file, moved before the handler returns (the article's second case)"

    private let session = URLSession.shared
    private let workDirectory: URL

    public init(workDirectory: URL) {
        self.workDirectory = workDirectory
    }

    public func fetch(url: URL) throws -> FetchOutcome {
        let completion = BlockingCompletion<FetchOutcome>()
        let destination = workDirectory.appendingPathComponent(UUID().uuidString + ".download")
        session.downloadTask(with: url) { temporaryFile, response, error in
            completion.finish(Result {
                // FoundationNetworking never deletes the temporary file; on failure remove it here.
                defer { if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) } }
                let http = try validateResponse(response, error: error)
                guard let temporaryFile else { throw FetchError.storage("no file was downloaded") }
                do {
                    try FileManager.default.moveItem(at: temporaryFile, to: destination)
                } catch {
                    throw FetchError.storage("moving \(temporaryFile.path) failed: \(error)")
                }
                let outcome = FetchOutcome(payload: .file(destination), statusCode: http.statusCode,
                                           expectedContentLength: http.expectedContentLength)
                try checkLength(of: outcome.payload.byteCount, against: http)
                return outcome
            })
        }.resume()
        return try completion.wait()
    }
}

/// Maps URLSession's (response, error) pair to an HTTP response with a 2xx status, or throws.
func validateResponse(_ response: URLResponse?, error: Error?) throws -> HTTPURLResponse {
    if let error {
        throw FetchError.transport(String(describing: error))
    }
    guard let http = response as? HTTPURLResponse else {
        throw FetchError.transport("no HTTP response")
    }
    guard (200..<300).contains(http.statusCode) else {
        throw FetchError.httpStatus(http.statusCode)
    }
    return http
}

/// A body that is shorter than Content-Length was cut off: never measure it as a success.
func checkLength(of received: Int, against response: HTTPURLResponse) throws {
    let expected = response.expectedContentLength
    if expected >= 0 && Int64(received) != expected {
        throw FetchError.lengthMismatch(expected: expected, received: received)
    }
}

/// Turns a completion handler into a blocking call: the child has nothing else to do while it waits.
final class BlockingCompletion<Value>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Value, Error>?

    func finish(_ result: Result<Value, Error>) {
        self.result = result
        done.signal()
    }

    func wait() throws -> Value {
        done.wait()
        let value = try result!.get()
        result = nil  // the caller becomes the only owner of the payload
        return value
    }
}
