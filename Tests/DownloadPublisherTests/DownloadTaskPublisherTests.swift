import DownloadPublisher
import Foundation
import LoopbackServer
import OpenCombine
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The article's publisher against the real loopback server: demand, cancellation before and
/// during the transfer, typed errors, and exactly one value then `.finished`.
@Suite(.serialized) struct DownloadTaskPublisherTests {
    @Test func publishesOneMovedFileThenFinishes() throws {
        try withHarness { harness in
            let recorder = harness.subscribe(to: "/body")
            try recorder.waitForCompletion()
            #expect(recorder.events.map(\.kind) == ["value", "finished"])
            let file = try #require(recorder.file)
            #expect(file.deletingLastPathComponent().standardizedFileURL == harness.destination.standardizedFileURL)
            #expect(try Data(contentsOf: file) == harness.body, "the moved file holds the body")
            #expect((recorder.response as? HTTPURLResponse)?.statusCode == 200)
            #expect(!recorder.subscriber.isSubscribed, "the subscriber lets go of its subscription on completion")
        }
    }

    @Test func anHTTPErrorStatusIsAValueForThePipelineToCheck() throws {
        try withHarness { harness in
            let recorder = harness.subscribe(to: "/missing")
            try recorder.waitForCompletion()
            #expect(recorder.events.map(\.kind) == ["value", "finished"])
            #expect((recorder.response as? HTTPURLResponse)?.statusCode == 404)
        }
    }

    @Test func noRequestUntilThereIsDemand() throws {
        try withHarness { harness in
            let recorder = harness.subscribe(to: "/body", demand: .none)
            Thread.sleep(forTimeInterval: 0.5)
            #expect(harness.server.requestCount(path: "/body") == 0)
            #expect(recorder.events.isEmpty)

            recorder.subscriber.request(.max(1))
            try recorder.waitForCompletion()
            #expect(harness.server.requestCount(path: "/body") == 1)
            #expect(recorder.events.map(\.kind) == ["value", "finished"])

            recorder.subscriber.request(.max(1))  // a second demand starts nothing: one value only
            Thread.sleep(forTimeInterval: 0.3)
            #expect(harness.server.requestCount(path: "/body") == 1)
        }
    }

    @Test func cancelBeforeDemandSendsNoRequest() throws {
        try withHarness { harness in
            let recorder = harness.subscribe(to: "/body", demand: .none)
            recorder.subscriber.cancel()
            recorder.subscriber.request(.max(1))
            Thread.sleep(forTimeInterval: 0.5)
            #expect(harness.server.requestCount(path: "/body") == 0)
            #expect(recorder.events.isEmpty)
        }
    }

    @Test func cancelBeforeTheFirstByteDeliversNothing() throws {
        try withHarness { harness in
            let url = harness.server.url(for: "/body", fault: .slowFirstByte(milliseconds: 1500))
            let recorder = harness.subscribe(to: url)
            try waitUntil { harness.server.requestCount(path: "/body") == 1 }
            recorder.subscriber.cancel()
            Thread.sleep(forTimeInterval: 2.5)  // past the server's delay: the body would have arrived
            #expect(recorder.events.isEmpty)
            #expect(try harness.filesInDestination().isEmpty)
        }
    }

    @Test func cancelDuringTheTransferStopsIt() throws {
        // 1 MB/s for 8 MB: eight seconds if it were not cancelled.
        try withHarness(bandwidth: 1_000_000, bodySize: 8_000_000) { harness in
            let recorder = harness.subscribe(to: "/body")
            try waitUntil { harness.server.bytesSent > 200_000 }
            recorder.subscriber.cancel()
            Thread.sleep(forTimeInterval: 1)
            let settled = harness.server.bytesSent
            Thread.sleep(forTimeInterval: 2)
            let later = harness.server.bytesSent
            // A transfer still running would add about 2 MB in these two seconds.
            #expect(later - settled < 200_000, "the server kept sending: \(settled) then \(later) bytes")
            #expect(later < harness.body.count)
            #expect(recorder.events.isEmpty, "nothing reaches a cancelled subscriber")
            #expect(try harness.filesInDestination().isEmpty)
        }
    }

    @Test func refusedConnectionFailsWithAURLError() throws {
        try withHarness { harness in
            let recorder = harness.subscribe(to: URL(string: "http://127.0.0.1:1/body")!)
            try recorder.waitForCompletion()
            #expect(recorder.events.map(\.kind) == ["failure"])
            #expect(recorder.failure?.code == .cannotConnectToHost)
        }
    }

    @Test func connectionResetMidBodyFailsWithAURLError() throws {
        try withHarness { harness in
            let recorder = harness.subscribe(to: harness.server.url(for: "/body", fault: .reset(afterBytes: 100_000)))
            try recorder.waitForCompletion()
            #expect(recorder.events.map(\.kind) == ["failure"])
            #expect(recorder.failure != nil)
            #expect(try harness.filesInDestination().isEmpty)
        }
    }

    @Test func unmovableFileFailsWithCannotMoveFile() throws {
        try withHarness { harness in
            // A regular file where the destination folder should be: the move cannot succeed.
            let blocked = harness.destination.appendingPathComponent("not-a-folder")
            try Data("x".utf8).write(to: blocked)
            let recorder = harness.subscribe(to: harness.server.url(for: "/body"), destination: blocked)
            try recorder.waitForCompletion()
            #expect(recorder.events.map(\.kind) == ["failure"])
            #expect(recorder.failure?.code == .cannotMoveFile)
        }
    }

    @Test func theExtensionMirrorsDataTaskPublisher() {
        let url = URL(string: "http://127.0.0.1/x")!
        let publisher = URLSession.shared.downloadTaskPublisher(for: url)
        #expect(publisher.request.url == url)
        #expect(publisher.session === URLSession.shared)
        #expect(publisher.destinationDirectory == URLSession.defaultDownloadDirectory)
    }
}
