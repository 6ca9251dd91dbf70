import Foundation
import LoopbackServer
import Strategies
import Testing

/// Every strategy in the catalog against the real loopback server: the right bytes on success,
/// and a mapped FetchError (never a crash, never a short body taken as success) on failure.
@Suite(.serialized) struct EveryStrategyTests {
    static let strategies = StrategyCatalog.names

    @Test(arguments: strategies)
    func payloadIsTheFixtureByteForByte(strategy: String) throws {
        try fetch(strategy, Fixture.url()) { outcome, workDirectory in
            #expect(outcome.payload.byteCount == Fixture.size)
            let digest = try SHA256Sum.of(outcome.payload)
            #expect(digest == Fixture.sha256)
            if case .file(let file) = outcome.payload {
                #expect(
                    file.deletingLastPathComponent().standardizedFileURL == workDirectory.standardizedFileURL,
                    "files go into the work folder, which the harness deletes"
                )
            }
        }
    }

    @Test(arguments: strategies)
    func notFoundIsAnError(strategy: String) {
        let error = fetchError { try fetch(strategy, Fixture.url("/no-such-image.jpg")) }
        if strategy == ContentsOfStrategy.name {
            // Data(contentsOf:) does not report the status: only that it failed.
            guard case .transport? = error else {
                Issue.record("got \(String(describing: error))")
                return
            }
        } else {
            #expect(error == .httpStatus(404))
        }
    }

    @Test(arguments: strategies)
    func refusedConnectionIsATransportError(strategy: String) {
        let error = fetchError { try fetch(strategy, URL(string: "http://127.0.0.1:1/fixture.jpg")!) }
        guard case .transport? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: strategies)
    func truncatedBodyIsNotASuccess(strategy: String) {
        let error = fetchError { try fetch(strategy, Fixture.url(fault: .truncate(afterBytes: 1_000_000))) }
        switch error {
        case .transport?, .lengthMismatch?: break
        default: Issue.record("got \(String(describing: error))")
        }
    }

    @Test(arguments: strategies)
    func warmedUpStrategyFetchesAgain(strategy: String) throws {
        // The harness warms a strategy up on /warmup, then measures a fetch with the same instance.
        let type = try #require(StrategyCatalog.strategy(named: strategy))
        try withWorkDirectory { directory in
            let instance = type.init(workDirectory: directory)
            try instance.warmUp(url: Fixture.url("/warmup"))
            let outcome = try instance.fetch(url: Fixture.url())
            #expect(outcome.payload.byteCount == Fixture.size)
        }
    }

    @Test func namesAreUniqueAndEveryStrategyHasASummary() {
        #expect(Set(Self.strategies).count == Self.strategies.count)
        for type in StrategyCatalog.all {
            #expect(!type.summary.isEmpty, "\(type.name)")
            #expect(StrategyCatalog.strategy(named: type.name) == type)
        }
    }
}
