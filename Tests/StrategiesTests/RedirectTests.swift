import Foundation
import LoopbackServer
import Strategies
import Testing

/// A server that redirects forever must not make a strategy spin, then fail with a misleading
/// error. Every strategy gives up after following 20 (URLSession's own limit on Linux, which
/// libcurl is set to match) with a transport error; the Combine data publisher retries, so it makes that attempt 1 + retries times.
@Suite(.serialized) struct RedirectTests {
    static let curlStrategies = StrategyCatalog.names.filter { $0.hasPrefix("curl") }

    @Test(arguments: StrategyCatalog.names)
    func aFewRedirectsAreFollowed(strategy: String) throws {
        try fetch(strategy, Fixture.url(fault: .redirect(hops: 3))) { outcome, _ in
            #expect(outcome.payload.byteCount == Fixture.size)
        }
    }

    @Test(arguments: StrategyCatalog.names)
    func aRedirectLoopIsABoundedTransportError(strategy: String) throws {
        // A path of its own: tests running beside this one fetch the fixture's path.
        let path = "/redirect-loop-\(strategy).jpg"
        Fixture.server.addResource(path: path, body: Data("never served".utf8), contentType: "image/jpeg")
        let error = fetchError { try fetch(strategy, Fixture.url(path, fault: .redirect())) }
        let requests = Fixture.server.requestCount(path: path)
        print("\(strategy): \(requests) requests for a redirect loop: \(String(describing: error))")
        guard case .transport(let failure)? = error else {
            Issue.record("\(strategy): got \(String(describing: error))")
            return
        }
        let attempts = strategy == DataPublisherStrategy.name ? 1 + DataPublisherStrategy.retries : 1
        #expect(requests <= attempts * (1 + 20), "\(strategy) sent \(requests) requests")
        let tooManyRedirects = URLError.Code.httpTooManyRedirects.rawValue
        if Self.curlStrategies.contains(strategy) {
            #expect(requests == 1 + 20, "\(strategy)")
            #expect(failure == .tooManyRedirects(followed: 20, limit: 20))
        } else if strategy == ContentsOfStrategy.name {
            guard case .contentsOf(urlErrorCode: tooManyRedirects, _) = failure else {
                Issue.record("\(failure)")
                return
            }
        } else {
            guard case .urlSession(code: tooManyRedirects, _) = failure else {
                Issue.record("\(strategy): \(failure)")
                return
            }
        }
    }
}
