import BenchCore
import Foundation
import OpenCombine
import OpenCombineFoundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The companion sources' `dataTaskPublisher` pipeline: the status is checked in `tryMap`,
/// failures are retried, and the pipeline ends in a fallback value instead of a failure
/// (as `replaceError(with:)` / `catch` do there). Here the fallback carries the error, so a
/// failed fetch is still reported as one rather than measured as a placeholder.
package final class DataPublisherStrategy: FetchStrategy {
    package static let name = "data-publisher"
    /// Floor: the body handed over in memory.
    package static let floor = FetchFloor.bodyInMemory
    package static let summary =
        "OpenCombine dataTaskPublisher: status check in tryMap, retry(\(retries)), catch to a fallback value"

    /// Extra attempts after the first: each one is a new request.
    package static let retries = 2

    package init(workDirectory: URL) {}

    package func fetch(url: URL) throws -> FetchOutcome {
        let completion = BlockingCompletion<FetchOutcome>()
        let pipeline = StrategySession.current.ocombine.dataTaskPublisher(for: url)
            .tryMap { data, response -> FetchOutcome in
                try checkedOutcome(.memory(data), of: validateResponse(response, error: nil))
            }
            .retry(Self.retries)
            .map { Result<FetchOutcome, Error>.success($0) }
            .catch { error in Just(.failure(FetchError.mapping(error))) }  // the fallback value
            .sink { completion.finish($0) }
        return try withExtendedLifetime(pipeline) { try completion.wait() }
    }
}

extension FetchError {
    /// Errors out of Combine pipelines: ours pass through, URLSession's become transport errors.
    static func mapping(_ error: Error) -> FetchError {
        if let fetchError = error as? FetchError { return fetchError }
        if let urlError = error as? URLError {
            return .transport(.urlSession(code: urlError.code.rawValue, message: urlError.localizedDescription))
        }
        return .transport(TransportFailure(urlSessionError: error))
    }
}
