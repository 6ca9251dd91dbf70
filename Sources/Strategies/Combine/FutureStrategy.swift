import BenchCore
import Foundation
import Imaging
import OpenCombine
import OpenCombineFoundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The companion sources' `Future`: it wraps a `dataTaskPublisher` and fails with a typed
/// `NetworkError` (bad URL, non-2xx status, decoding failure). The Future keeps its result
/// for late subscribers, so it holds the body for as long as the Future itself lives.
package final class FutureStrategy: FetchStrategy {
    package static let name = "future"
    /// Floor: the body handed over in memory.
    package static let floor = FetchFloor.bodyInMemory
    package static let summary =
        "OpenCombine Future wrapping dataTaskPublisher, failing with a typed NetworkError (bad URL, status, decode)"

    private let session = StrategySession.current
    /// The Future's inner subscriptions, kept as the companion sources keep them.
    private var cancellables = Set<AnyCancellable>()

    package init(workDirectory: URL) {}

    /// Starts the request at once (a Future runs its closure when it is made).
    package func imageFuture(for url: URL) -> Future<FetchOutcome, NetworkError> {
        Future { [self] promise in
            guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                let host = url.host, !host.isEmpty
            else {
                promise(.failure(.badURL(url.absoluteString)))
                return
            }
            session.ocombine.dataTaskPublisher(for: url)
                .mapError { NetworkError.transport($0.code, $0.localizedDescription) }
                .tryMap(Self.checkedOutcome)
                .mapError { $0 as? NetworkError ?? .transport(.unknown, String(describing: $0)) }
                .sink(
                    receiveCompletion: { end in
                        if case .failure(let error) = end { promise(.failure(error)) }
                    },
                    receiveValue: { promise(.success($0)) }
                )
                .store(in: &cancellables)
        }
    }

    package func fetch(url: URL) throws -> FetchOutcome {
        let completion = BlockingCompletion<FetchOutcome>()
        let subscription = imageFuture(for: url).sink(
            receiveCompletion: { end in
                if case .failure(let error) = end { completion.finish(.failure(error.fetchError)) }
            },
            receiveValue: { completion.finish(.success($0)) }
        )
        defer { cancellables.removeAll() }  // finished by now; nothing left to keep
        return try withExtendedLifetime(subscription) { try completion.wait() }
    }

    /// Status, length, and "decode": a body served as image/jpeg must have a JPEG header that parses.
    static func checkedOutcome(data: Data, response: URLResponse) throws -> FetchOutcome {
        guard let http = response as? HTTPURLResponse else {
            throw NetworkError.transport(.badServerResponse, "no HTTP response")
        }
        guard (200..<300).contains(http.statusCode) else { throw NetworkError.badStatus(http.statusCode) }
        let expected = http.expectedContentLength
        if expected >= 0 && Int64(data.count) != expected {
            throw NetworkError.incompleteBody(expected: expected, received: data.count)
        }
        if http.mimeType == "image/jpeg" {
            do {
                _ = try JPEGDecoder.imageSize(of: .memory(data))
            } catch {
                throw NetworkError.decodingFailed(String(describing: error))
            }
        }
        return FetchOutcome(payload: .memory(data), statusCode: http.statusCode, expectedContentLength: expected)
    }
}
