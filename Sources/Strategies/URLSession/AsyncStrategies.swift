import BenchCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// async/await: `URLSession.data(from:)` returns the whole body as `Data`, like the data task.
package final class AsyncDataStrategy: FetchStrategy {
    package static let name = "async-data"
    /// Floor: the body handed over in memory.
    package static let floor = FetchFloor.bodyInMemory
    package static let summary = "async/await URLSession.data(from:); the whole body returned as Data"

    package init(workDirectory: URL) {}

    package func fetch(url: URL) throws -> FetchOutcome {
        try runBlocking {
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await StrategySession.current.data(from: url)
            } catch {
                throw FetchError.transport(TransportFailure(urlSessionError: error))
            }
            return try checkedOutcome(.memory(data), of: validateResponse(response, error: nil))
        }
    }
}

/// async/await: `URLSession.download(from:)` returns a temporary file, moved into the work folder.
package final class AsyncDownloadStrategy: FetchStrategy {
    package static let name = "async-download"
    /// Floor: the body streams to a file.
    package static let floor = FetchFloor.streamingBuffer(bytes: FetchFloor.fileStreamingBufferBytes)
    package static let summary = "async/await URLSession.download(from:); the body streams to a file, then moved"

    private let workDirectory: URL

    package init(workDirectory: URL) {
        self.workDirectory = workDirectory
    }

    package func fetch(url: URL) throws -> FetchOutcome {
        let destination = freshDestination(in: workDirectory)
        return try runBlocking {
            let temporaryFile: URL
            let response: URLResponse
            do {
                (temporaryFile, response) = try await StrategySession.current.download(from: url)
            } catch {
                throw FetchError.transport(TransportFailure(urlSessionError: error))
            }
            defer { try? FileManager.default.removeItem(at: temporaryFile) }  // gone already when moved
            let http = try validateResponse(response, error: nil)
            try moveDownloadedFile(temporaryFile, to: destination)
            return try checkedOutcome(.file(destination), of: http)
        }
    }
}
