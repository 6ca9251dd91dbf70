import BenchCore
import DownloadPublisher
import Foundation
import OpenCombine

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The article's Combine part: its custom `DownloadTaskPublisher` (the file is moved into the
/// work folder before the task's handler returns), the status checked in `tryMap`, and the
/// article's subscriber that holds its subscription and lets go of it on completion.
package final class DownloadPublisherStrategy: FetchStrategy {
    package static let name = "download-publisher"
    /// Floor: the body streams to a file.
    package static let floor = FetchFloor.streamingBuffer(bytes: FetchFloor.fileStreamingBufferBytes)
    package static let summary =
        "the article's custom DownloadTaskPublisher (OpenCombine): file moved, then status checked in tryMap"

    private let workDirectory: URL

    package init(workDirectory: URL) {
        self.workDirectory = workDirectory
    }

    package func fetch(url: URL) throws -> FetchOutcome {
        let completion = BlockingCompletion<FetchOutcome>()
        var received: FetchOutcome?
        let subscriber = RetainingSubscriber<FetchOutcome, Error>(
            receiveValue: { received = $0 },
            receiveCompletion: { end in
                switch end {
                case .finished:
                    completion.finish(
                        received.map { .success($0) }
                            ?? .failure(FetchError.transport(.noValue))
                    )
                case .failure(let error):
                    completion.finish(.failure(FetchError.mapping(error)))
                }
                received = nil
            }
        )
        StrategySession.current.downloadTaskPublisher(for: url, movingTo: workDirectory)
            .tryMap { file, response -> FetchOutcome in
                do {
                    return try checkedOutcome(.file(file), of: validateResponse(response, error: nil))
                } catch {
                    try? FileManager.default.removeItem(at: file)
                    throw error
                }
            }
            .subscribe(subscriber)
        return try completion.wait()
    }
}
