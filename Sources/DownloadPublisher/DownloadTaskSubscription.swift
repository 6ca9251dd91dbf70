import Foundation
import OpenCombine
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The link between one subscriber and one download task. The task is created and resumed
/// on the first positive demand (only one value is ever sent, so later demand changes
/// nothing); `cancel()` is forwarded to the task, and after it nothing reaches the subscriber.
///
/// `@unchecked Sendable`: it holds the caller's subscriber, which need not be Sendable (so it cannot
/// be a `Mutex`'s value); every field is read and written only inside `lock.withLock`, a `Mutex`
/// that guards no value of its own.
final class DownloadTaskSubscription<S: Subscriber>: Subscription, DownloadTaskFinishing, @unchecked Sendable
where S.Input == DownloadTaskPublisher.Output, S.Failure == URLError {
    private let lock = Mutex(())
    private var publisher: DownloadTaskPublisher?
    private var subscriber: S?
    private var task: URLSessionDownloadTask?

    init(publisher: DownloadTaskPublisher, subscriber: S) {
        self.publisher = publisher
        self.subscriber = subscriber
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        var created: URLSessionDownloadTask?
        lock.withLock { _ in
            guard task == nil, let publisher else { return }  // already started, or cancelled
            // The handler keeps this subscription alive until the task ends, even if the subscriber lets go.
            // Through the non-generic protocol: the handler must not capture the metatype of S.
            let finishing: any DownloadTaskFinishing = self
            let task = publisher.session.downloadTask(with: publisher.request) { location, response, error in
                finishing.finish(location: location, response: response, error: error)
            }
            self.task = task
            created = task
        }
        created?.resume()
    }

    func cancel() {
        var running: URLSessionDownloadTask?
        lock.withLock { _ in
            running = task
            terminate()
        }
        running?.cancel()
    }

    /// The task's completion handler. The file must be moved before it returns.
    func finish(location: URL?, response: URLResponse?, error: Error?) {
        var ended: (S, URL)?
        lock.withLock { _ in
            guard let subscriber, let publisher else { return }
            terminate()
            ended = (subscriber, publisher.destinationDirectory)
        }
        guard let (subscriber, directory) = ended else {
            // Cancelled: nobody wants the file (FoundationNetworking would leave it behind).
            if let location { try? FileManager.default.removeItem(at: location) }
            return
        }
        switch Self.outcome(location: location, response: response, error: error, directory: directory) {
        case .success(let output):
            _ = subscriber.receive(output)
            subscriber.receive(completion: .finished)
        case .failure(let error):
            subscriber.receive(completion: .failure(error))
        }
    }

    private static func outcome(
        location: URL?,
        response: URLResponse?,
        error: Error?,
        directory: URL
    ) -> Result<DownloadTaskPublisher.Output, URLError> {
        if let error {
            if let location { try? FileManager.default.removeItem(at: location) }
            return .failure(URLError.mapping(error))
        }
        guard let location, let response else {
            return .failure(URLError(.badServerResponse))
        }
        let destination = directory.appendingPathComponent(UUID().uuidString)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: location, to: destination)
        } catch {
            try? FileManager.default.removeItem(at: location)
            return .failure(URLError(.cannotMoveFile, userInfo: [NSUnderlyingErrorKey: error]))
        }
        return .success((url: destination, response: response))
    }

    /// Drops every reference; must be called with the lock held.
    private func terminate() {
        publisher = nil
        subscriber = nil
        task = nil
    }
}

/// The download task's completion handler, seen without the subscriber's type.
protocol DownloadTaskFinishing: Sendable {
    func finish(location: URL?, response: URLResponse?, error: Error?)
}

extension URLError {
    /// The completion handler's error as a `URLError`: FoundationNetworking reports `NSError`s in
    /// `NSURLErrorDomain`, which do not always cast; anything else is `.unknown`, cause kept.
    static func mapping(_ error: Error) -> URLError {
        if let urlError = error as? URLError { return urlError }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain {
            return URLError(URLError.Code(rawValue: nsError.code) ?? .unknown, userInfo: nsError.userInfo)
        }
        return URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error])
    }
}
