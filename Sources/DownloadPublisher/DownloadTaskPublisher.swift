import Foundation
import OpenCombine

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The article's publisher for a URLSession download task, mirroring `dataTaskPublisher(for:)`.
///
/// It publishes one value, the downloaded file (already moved out of URLSession's temporary
/// location into `destinationDirectory` under a fresh UUID name) and the response, then
/// finishes; or it fails with a `URLError`. Nothing happens until the subscriber asks for a
/// value; cancelling the subscription cancels the task. Any HTTP status is a value: checking
/// it is the pipeline's job, as with `dataTaskPublisher`.
package struct DownloadTaskPublisher: Publisher {
    package typealias Output = (url: URL, response: URLResponse)
    package typealias Failure = URLError

    package let request: URLRequest
    package let session: URLSession
    /// Where the downloaded file is moved before the task's handler returns.
    package let destinationDirectory: URL

    package init(request: URLRequest, session: URLSession, destinationDirectory: URL) {
        self.request = request
        self.session = session
        self.destinationDirectory = destinationDirectory
    }

    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = DownloadTaskSubscription(publisher: self, subscriber: subscriber)
        subscriber.receive(subscription: subscription)
    }
}

extension URLSession {
    /// A publisher that wraps a download task for `url`; see `DownloadTaskPublisher`.
    /// - Parameter directory: where the file is moved; by default the user's caches directory, as in the article.
    package func downloadTaskPublisher(
        for url: URL,
        movingTo directory: URL = defaultDownloadDirectory
    ) -> DownloadTaskPublisher {
        downloadTaskPublisher(for: URLRequest(url: url), movingTo: directory)
    }

    package func downloadTaskPublisher(
        for request: URLRequest,
        movingTo directory: URL = defaultDownloadDirectory
    ) -> DownloadTaskPublisher {
        DownloadTaskPublisher(request: request, session: self, destinationDirectory: directory)
    }

    package static var defaultDownloadDirectory: URL {
        FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
    }
}
