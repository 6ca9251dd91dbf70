import Foundation
import ImageServer
import Imaging
import LoopbackServer
import Strategies
import TestSupport
import Testing

/// The image's header read from a real loopback origin with ranged requests, in process: metadata
/// is skipped by its length, never fetched; an origin that ignores Range gives its first part only.
@Suite struct OriginHeaderTests {
    func withOrigin<Value>(_ resources: [String: Data], _ body: (LoopbackServer) throws -> Value) throws -> Value {
        let origin = LoopbackServer()
        for (path, bytes) in resources { origin.addResource(path: path, body: bytes) }
        try origin.start()
        defer { origin.shutdown() }
        return try body(origin)
    }

    /// 300 KB of APP1 before the frame header: the header is found, and what the origin sent stays
    /// far under the padding (each segment's marker and length are read, its payload skipped).
    @Test func metadataIsSkippedNotFetched() throws {
        let image = MetadataPadding.jpeg(HostileHeaders.jpeg(width: 6000, height: 4000), app1Bytes: 300_000)
        let (answer, sent) = try withOrigin(["/padded.jpg": image]) { origin in
            (try OriginHeader.read(origin.url(for: "/padded.jpg")), origin.bytesSent)
        }
        let info = try #require(answer.info)
        #expect(info.format == .jpeg && info.width == 6000 && info.height == 4000)
        #expect(answer.totalBytes == image.count)
        #expect(answer.requests >= 2 && answer.requests <= 8, "\(answer.requests) ranged requests")
        #expect(sent > 0 && sent < 8 * OriginHeader.partBytes, "the origin sent \(sent) bytes of \(image.count)")
    }

    /// A 65280x65280 PNG's size is read from its first part.
    @Test func aPNGHeaderIsReadFromTheFirstPart() throws {
        let answer = try withOrigin(["/huge.png": HostileHeaders.png(width: 65280, height: 65280)]) { origin in
            try OriginHeader.read(origin.url(for: "/huge.png"))
        }
        #expect(answer.info?.width == 65280 && answer.info?.height == 65280)
        #expect(answer.requests == 1)
    }

    /// An origin that ignores Range (here: a chunked answer, no length) gives its first part: a
    /// header in it is read, one past it is not (nil: the caller reserves the worst case), and the
    /// size is unknown. The reader ends each transfer after its part, so of two 32 MiB images the
    /// origin gets out only what loopback's socket buffers take before the connection closes (a
    /// few MiB each: net.ipv4.tcp_wmem's 4 MiB at most, and a receive buffer that grows only as
    /// the reader reads), never the images.
    @Test func anOriginWithoutRangeGivesItsFirstPartOnly() throws {
        let tail = Data(count: 32 << 20)
        let near = HostileHeaders.jpeg(width: 640, height: 480) + tail
        let far = MetadataPadding.jpeg(HostileHeaders.jpeg(width: 640, height: 480), app1Bytes: 100_000) + tail
        try withOrigin(["/near.jpg": near, "/far.jpg": far]) { origin in
            let readable = try OriginHeader.read(origin.url(for: "/near.jpg", fault: .chunked))
            #expect(readable.info?.width == 640)
            #expect(readable.totalBytes == nil)
            let unreadable = try OriginHeader.read(origin.url(for: "/far.jpg", fault: .chunked))
            #expect(unreadable.info == nil)
            #expect(unreadable.requests == 1)
            #expect(
                origin.bytesSent < 16 << 20,
                "the origin sent \(origin.bytesSent) bytes of \(near.count + far.count)"
            )
        }
    }

    /// What is not an image of ours is said to be so (the server answers 422 before fetching it);
    /// a status the origin gives is passed on.
    @Test func notAnImageAndAMissingOneAreErrors() throws {
        try withOrigin(["/notes.txt": Data("just text, no image here".utf8)]) { origin in
            #expect(throws: ImagingError.self) { try OriginHeader.read(origin.url(for: "/notes.txt")) }
            #expect(throws: FetchError.httpStatus(404)) { try OriginHeader.read(origin.url(for: "/missing.jpg")) }
        }
    }
}
