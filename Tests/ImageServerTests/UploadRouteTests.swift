import BenchCore
import Foundation
import Harness
import ImageServer
import Imaging
import Scenarios
import Strategies
import TestSupport
import Testing

/// `POST /image` in a real server child: the image is the request's body, held in memory
/// (collect) or streamed to a file (file), then rendered and answered as GET's; a request's file is
/// gone by the time its answer (or its client's leaving) ends it.
@Suite(.serialized) struct UploadRouteTests {
    let server = ImageServerChildTests()

    func fixture() throws -> Data {
        try Data(
            contentsOf: FixtureGenerator.cachedFixture(
                ImageServerChildTests.fixture,
                in: testFixtureCache("image-server")
            )
        )
    }

    static func files(in work: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("requests").path)) ?? []
    }

    /// Each upload is answered with the resized JPEG, decodable in full; after each answer the requests
    /// folder is empty (the server still running); a server that fetches nothing answers GET 404.
    @Test(arguments: [UploadBody.collect, .file])
    func postAnswersTheRenderedUploadAndKeepsNoFile(upload: UploadBody) throws {
        let body = try fixture()
        let work = server.scratch()
        let answers = try server.drive(
            render: .full,
            body: body,
            strategy: ImageRoute.noStrategy,
            upload: upload,
            work: work
        ) { base in
            let client = CurlMemoryStrategy(workDirectory: work)
            var sizes: [String] = []
            var leftovers: [String] = []
            for _ in 0..<3 {
                let outcome = try client.fetch(url: URL(string: "\(base)/image")!, posting: body)
                guard case .memory(let data) = outcome.payload else { throw TestFailure("the answer is not in memory") }
                let image = try ImageDecoder.decodeFull(.memory(data))
                sizes.append("\(try ImageDecoder.inspect(.memory(data)).format) \(image.width)x\(image.height)")
                leftovers += Self.files(in: work)
            }
            let get = LoadGenerator.send(
                index: 0,
                url: URL(string: "\(base)/image/fixture.jpg")!,
                with: CurlMemoryStrategy(workDirectory: work)
            )
            return (sizes, leftovers, get.status)
        }
        let (sizes, leftovers, get) = answers.result
        #expect(sizes == Array(repeating: "jpeg 1024x768", count: 3), "\(sizes)")
        #expect(leftovers.isEmpty, "files left after their answers: \(leftovers)")
        #expect(get == 404)
        #expect(answers.report.requestsAnswered == 4)
        #expect(answers.report.requestsFailed == 1)
    }

    /// A file upload whose client leaves mid-body: its file is there while the body comes (the upload
    /// streams to disk), and is gone soon after the client has left; the server goes on serving.
    @Test func aFileUploadLeftMidBodyLeavesNoFile() throws {
        let body = try fixture()
        let work = server.scratch()
        let answers = try server.drive(
            render: .stream,
            body: body,
            strategy: ImageRoute.noStrategy,
            upload: .file,
            work: work
        ) { base in
            let port = Int(base.split(separator: ":").last!)!
            var leaving: RawSocket? = try RawSocket(port: port)
            _ = leaving?.send("POST /image HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n\r\n")
            _ = leaving?.send(body.prefix(body.count / 2))
            var during: [String] = []
            for _ in 0..<1000 where during.isEmpty {
                during = Self.files(in: work)
                usleep(5_000)
            }
            if let socket = leaving { shutdown(socket.descriptor, Int32(SHUT_RDWR)) }
            leaving = nil  // closed
            var after = during
            for _ in 0..<1000 where !after.isEmpty {
                usleep(5_000)
                after = Self.files(in: work)
            }
            let next = try CurlMemoryStrategy(workDirectory: work).fetch(
                url: URL(string: "\(base)/image")!,
                posting: body
            )
            return (during, after, next.statusCode)
        }
        let (during, after, next) = answers.result
        #expect(during.count == 1, "no file while the body came: \(during)")
        #expect(after.isEmpty, "the file outlived its client: \(after)")
        #expect(next == 200)
    }

    /// The scenario's own load uploads the fixture with C in flight (its warm-up too), and the row says
    /// route post, its body, strategy none; a row of a file without the body column reads as GET's.
    @Test func theScenarioLoadsThePostRouteAndItsRowSaysSo() throws {
        var settings = server.settings(strategy: ImageRoute.noStrategy, render: .stream, concurrency: 2, requests: 6)
        settings.route = .post(.file)
        let result = try server.serve(settings)
        #expect(result.status == .ok, "\(result.error)")
        #expect(result.requestsOK == 6, "\(result.requests.filter { $0.status != 200 })")
        #expect(result.report.requestsAnswered == 6)
        #expect(result.report.maxInFlight == 2)
        #expect(result.floorBytes != nil)
        let row = Dictionary(uniqueKeysWithValues: ServerCSV.columns.map { ($0.name, $0.write(result)) })
        #expect(row["route"] == "post" && row["body"] == "file" && row["strategy"] == "none", "\(row)")
        let point = try #require(ServerPoint(row: row))
        #expect(point.cell == ["none", "stream", "system", "post", "file", "2"])
        var old = row
        (old["strategy"], old["route"], old["body"]) = ("download", "get", nil)
        #expect(ServerPoint(row: old)?.cell == ["download", "stream", "system", "get", "none", "2"])
    }
}
