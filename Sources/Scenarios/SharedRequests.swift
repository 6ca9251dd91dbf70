import Foundation
import OpenCombine
import OpenCombineFoundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Request coalescing: every subscriber asking for a URL while its transfer is in flight gets
/// the same `share()`d data-task publisher, so N subscribers cause one request and one body.
///
/// `@unchecked Sendable`: an `AnyPublisher` is not Sendable, so it cannot be a `Mutex`'s value
/// (one read out of it would be sent to another thread); `inFlight` is read and written only
/// inside `lock.withLock`, a `Mutex` that guards no value of its own.
package final class SharedRequests: @unchecked Sendable {
    private let session: URLSession
    private let lock = Mutex(())
    private var inFlight: [URL: AnyPublisher<Data, URLError>] = [:]

    package init(session: URLSession = .shared) {
        self.session = session
    }

    package func publisher(for url: URL) -> AnyPublisher<Data, URLError> {
        var publisher: AnyPublisher<Data, URLError>?
        lock.withLock { _ in
            if let shared = inFlight[url] {
                publisher = shared
                return
            }
            // Once finished or cancelled the entry goes, so a later subscriber starts a fresh transfer.
            let forget: () -> Void = { [weak self] in
                self?.lock.withLock { _ in _ = self?.inFlight.removeValue(forKey: url) }
            }
            let shared = session.ocombine.dataTaskPublisher(for: url)
                .map(\.data)
                .handleEvents(receiveCompletion: { _ in forget() }, receiveCancel: forget)
                .share()
                .eraseToAnyPublisher()
            inFlight[url] = shared
            publisher = shared
        }
        return publisher!
    }
}
