import BenchCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The article's first code path: `URLSession.dataTask(with:)`, whose completion handler
/// receives the whole body as one `Data`.
package final class DataTaskStrategy: FetchStrategy {
    package static let name = "data"
    /// Floor: the body handed over in memory.
    package static let floor = FetchFloor.bodyInMemory
    package static let summary =
        "URLSession data task; the completion handler gets the whole body as Data (the article's first case)"

    private let session = StrategySession.current

    package init(workDirectory: URL) {}

    package func fetch(url: URL) throws -> FetchOutcome {
        let completion = BlockingCompletion<FetchOutcome>()
        session.dataTask(with: url) { data, response, error in
            completion.finish(
                Result {
                    let http = try validateResponse(response, error: error)
                    return try checkedOutcome(.memory(data ?? Data()), of: http)
                }
            )
        }.resume()
        return try completion.wait()
    }
}

/// The article's second code path: `URLSession.downloadTask(with:)` streams the body to a
/// temporary file, which is moved (under a fresh UUID name) before the handler returns.
package final class DownloadTaskStrategy: FetchStrategy {
    package static let name = "download"
    /// Floor: the body streams to a file.
    package static let floor = FetchFloor.streamingBuffer(bytes: FetchFloor.fileStreamingBufferBytes)
    package static let summary =
        "URLSession download task; the body streams to a temporary file, moved before the handler returns (the article's second case)"

    private let session = StrategySession.current
    private let workDirectory: URL

    package init(workDirectory: URL) {
        self.workDirectory = workDirectory
    }

    package func fetch(url: URL) throws -> FetchOutcome {
        let completion = BlockingCompletion<FetchOutcome>()
        let destination = freshDestination(in: workDirectory)
        session.downloadTask(with: url) { temporaryFile, response, error in
            completion.finish(
                Result {
                    // FoundationNetworking never deletes the temporary file; on failure remove it here.
                    defer { if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) } }
                    let http = try validateResponse(response, error: error)
                    guard let temporaryFile else { throw FetchError.storage("no file was downloaded") }
                    try moveDownloadedFile(temporaryFile, to: destination)
                    return try checkedOutcome(.file(destination), of: http)
                }
            )
        }.resume()
        return try completion.wait()
    }
}
