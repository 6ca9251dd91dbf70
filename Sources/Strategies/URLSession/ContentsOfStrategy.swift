import BenchCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Data(contentsOf:)` on an http URL: the common anti-pattern. It blocks the calling thread
/// for the whole transfer and reports neither the status nor the headers. On Linux it runs a
/// data task in a fresh URLSession and then copies the body twice (into an NSData, then into
/// the Data it returns), and it fails on most non-2xx statuses without saying which.
package final class ContentsOfStrategy: FetchStrategy {
    package static let name = "contents-of"
    /// Floor: the body handed over in memory.
    package static let floor = FetchFloor.bodyInMemory
    package static let summary = "Data(contentsOf:) on the URL: the anti-pattern; blocks a thread, no status or headers"

    package init(workDirectory: URL) {}

    package func fetch(url: URL) throws -> FetchOutcome {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let underlying = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? Error).map { $0 as NSError }
            let code = underlying.flatMap { $0.domain == NSURLErrorDomain ? $0.code : nil }
            throw FetchError.transport(.contentsOf(urlErrorCode: code, message: String(describing: error)))
        }
        return FetchOutcome(payload: .memory(data), statusCode: 0, expectedContentLength: -1)
    }
}
