import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenCombine
import OpenCombineFoundation

/// Request coalescing: every subscriber asking for a URL while its transfer is in flight gets
/// the same `share()`d data-task publisher, so N subscribers cause one request and one body.
///
/// `@unchecked Sendable`: an `AnyPublisher` is not Sendable, so it cannot live in a `Mutex`;
/// `inFlight` is read and written under `lock` only.
public final class SharedRequests: @unchecked Sendable {
    private let session: URLSession
    private let lock = NSLock()
    private var inFlight: [URL: AnyPublisher<Data, URLError>] = [:]

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func publisher(for url: URL) -> AnyPublisher<Data, URLError> {
        lock.withLock {
            if let shared = inFlight[url] { return shared }
            // Once finished or cancelled the entry goes, so a later subscriber starts a fresh transfer.
            let forget: () -> Void = { [weak self] in self?.lock.withLock { _ = self?.inFlight.removeValue(forKey: url) } }
            let shared = session.ocombine.dataTaskPublisher(for: url)
                .map(\.data)
                .handleEvents(receiveCompletion: { _ in forget() }, receiveCancel: forget)
                .share()
                .eraseToAnyPublisher()
            inFlight[url] = shared
            return shared
        }
    }
}
