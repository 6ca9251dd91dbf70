import Foundation
import LoopbackServer
import OpenCombine
import Strategies
import Testing

/// What the Combine strategies add over a plain data task: retries, and the Future's typed errors.
@Suite(.serialized) struct PipelineTests {
    @Test func dataPublisherRetriesAFailedRequestThenReportsIt() throws {
        let path = "/flaky-\(UUID().uuidString.prefix(8))"
        Fixture.server.addResource(path: path, body: Data(repeating: 1, count: 1000))
        let error = fetchError { try fetch(DataPublisherStrategy.name, Fixture.url(path, fault: .status(503))) }
        #expect(error == .httpStatus(503))
        #expect(Fixture.server.requestCount(path: path) == 1 + DataPublisherStrategy.retries)
    }

    @Test func futureFailsWithATypedNetworkError() throws {
        let cases: [(URL, NetworkError)] = [
            (URL(string: "ftp://127.0.0.1/fixture.jpg")!, .badURL("ftp://127.0.0.1/fixture.jpg")),
            (Fixture.url("/no-such-image.jpg"), .badStatus(404)),
        ]
        for (url, expected) in cases {
            #expect(try futureError(url) == expected)
        }
        guard case .decodingFailed? = try futureError(Fixture.url("/text.jpg")) else {
            Issue.record("a text body served as image/jpeg must fail to decode")
            return
        }
    }

    @Test func futureDecodeFailureIsADecodeErrorForTheHarness() {
        let error = fetchError { try fetch(FutureStrategy.name, Fixture.url("/text.jpg")) }
        guard case .undecodable? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func badURLSendsNoRequest() throws {
        let before = Fixture.server.totalRequestCount
        _ = try futureError(URL(string: "file:///etc/hostname")!)
        #expect(Fixture.server.totalRequestCount == before)
    }

    /// Subscribes to the strategy's Future and waits (bounded) for its failure.
    func futureError(_ url: URL) throws -> NetworkError? {
        let strategy = FutureStrategy(workDirectory: FileManager.default.temporaryDirectory)
        let done = DispatchSemaphore(value: 0)
        var failure: NetworkError?
        let subscription = strategy.imageFuture(for: url).sink(
            receiveCompletion: { end in
                if case .failure(let error) = end { failure = error }
                done.signal()
            },
            receiveValue: { _ in }
        )
        #expect(done.wait(timeout: .now() + 30) == .success, "the Future never completed")
        withExtendedLifetime(subscription) {}
        return failure
    }
}
