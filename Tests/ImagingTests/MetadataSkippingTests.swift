import Foundation
import Imaging
import TestSupport
import Testing

/// A header is found by skipping what lies before it by its length, never by holding it: from a
/// buffer, a file, or a forward-only stream that is read only up to the header. Lengths are the
/// file's word: a hostile one gives an error that names it, and every walk ends with its input.
@Suite struct MetadataSkippingTests {
    static let eightMB = 8 * 1024 * 1024

    /// A 640x480 JPEG behind 8 MB of APP1 segments.
    static func paddedJPEG() throws -> (jpeg: Data, padded: Data) {
        let jpeg = try FixtureGenerator.makeJPEG(FixtureSpec(width: 640, height: 480))
        return (jpeg, MetadataPadding.jpeg(jpeg, app1Bytes: eightMB))
    }

    /// Where the frame header's segment ends in `jpeg` (SOF0, as the fixture encoder writes).
    static func frameHeaderEnd(_ jpeg: Data) throws -> Int {
        let sof = try #require(jpeg.firstRange(of: Data([0xFF, 0xC0]))).lowerBound - jpeg.startIndex
        return sof + 2 + (Int(jpeg[jpeg.startIndex + sof + 2]) << 8 | Int(jpeg[jpeg.startIndex + sof + 3]))
    }

    /// A forward-only stream handing out `data` as asked, recording the most asked at once and the
    /// bytes handed out.
    final class CountingStream {
        let data: Data
        var handedOut = 0
        var largestRequest = 0
        init(_ data: Data) { self.data = data }
        func pull(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
            largestRequest = max(largestRequest, buffer.count)
            let n = min(buffer.count, data.count - handedOut)
            data.copyBytes(
                to: buffer.bindMemory(to: UInt8.self),
                from: data.startIndex + handedOut..<data.startIndex + handedOut + n
            )
            handedOut += n
            return n
        }
    }

    /// The same file from memory and from a file gives the same header as the file without metadata.
    @Test func aJPEGsFrameHeaderIsFoundPastEightMegabytesOfAPP1() throws {
        let (jpeg, padded) = try Self.paddedJPEG()
        let path = try Self.write(padded, "padded.jpg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let expected = try ImageInspector.inspect(jpeg)
        #expect(try ImageInspector.inspect(padded) == expected)
        #expect(try ImageDecoder.inspect(.file(path: path)) == expected)
    }

    /// RST0-7 and TEM carry no length: between segments they are passed, as libjpeg-turbo passes
    /// them, and the file decodes.
    @Test func restartAndTEMMarkersBeforeTheFrameHeaderArePassed() throws {
        let jpeg = try FixtureGenerator.makeJPEG(FixtureSpec(width: 64, height: 48))
        let stray = Data(jpeg.prefix(2)) + [0xFF, 0xD0, 0xFF, 0x01, 0xFF, 0xFF, 0xD7] + jpeg.dropFirst(2)
        let path = try Self.write(stray, "stray.jpg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let expected = try ImageInspector.inspect(jpeg)
        #expect(try ImageInspector.inspect(stray) == expected)
        #expect(try ImageDecoder.inspect(.file(path: path)) == expected)
        let decoded = try ImageDecoder.decodeFull(.file(path: path))
        #expect((decoded.width, decoded.height) == (64, 48))
    }

    static let hostileCases: [([UInt8], String)] = {
        let sof = Array(HostileHeaders.jpeg(width: 8, height: 8).dropFirst(2))
        return [
            (
                [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01] + sof,
                "JPEG: marker FFE1 at byte 2 gives its segment a length of 1"
            ),
            ([0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xF0, 0x41], "JPEG: truncated before its frame header (SOF) (7 bytes)"),
            (
                [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 1 << 20),
                "JPEG: truncated before its frame header (SOF) (\((1 << 20) + 2) bytes)"
            ),
            ([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0xFF, 0xD8] + sof, "JPEG: a second start-of-image marker"),
        ]
    }()

    /// Hostile lengths and fill: each an error naming the problem.
    @Test func hostileSegmentsAreRefusedByName() throws {
        for (bytes, message) in Self.hostileCases {
            let error = #expect(throws: ImagingError.self) { try ImageInspector.inspect(Data(bytes)) }
            #expect(error.map { "\($0)" }?.contains(message) == true, "\(String(describing: error))")
        }
    }

    /// A tRNS chunk after 8 MB of text still says the image has alpha: the chunks are walked to IDAT.
    @Test func aPNGsTransparencyChunkIsFoundPastEightMegabytesOfText() throws {
        var png = [UInt8](HostileHeaders.png(width: 16, height: 16).prefix(33))
        png += MetadataPadding.chunk("tRNS", [0, 1, 0, 2, 0, 3]) + MetadataPadding.chunk("IDAT", [])
        let padded = MetadataPadding.png(Data(png), textBytes: Self.eightMB)
        let path = try Self.write(padded, "padded.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try ImageInspector.inspect(padded).hasAlpha)
        #expect(try ImageDecoder.inspect(.file(path: path)).hasAlpha)
    }

    /// A lossy WebP with a 1 MB ICC profile before its image chunk renders from a file as the same
    /// image without it does: the profile is skipped, not fed to libwebp.
    @Test func aWebPsProfileBeforeItsImageIsSkippedByTheStreamRender() throws {
        let plain = try FixtureGenerator.make(FixtureSpec(width: 320, height: 240, encoding: .webpLossy))
        let padded = MetadataPadding.webp(plain, width: 320, height: 240, iccBytes: 1 << 20)
        let (plainPath, paddedPath) = (try Self.write(plain, "plain.webp"), try Self.write(padded, "padded.webp"))
        defer { for path in [plainPath, paddedPath] { try? FileManager.default.removeItem(atPath: path) } }
        #expect(try ImageDecoder.inspect(.file(path: paddedPath)) == ImageDecoder.inspect(.file(path: plainPath)))
        let expected = try ImageDecoder.decodeStreaming(.file(path: plainPath), maxPixel: 100)
        let rendered = try ImageDecoder.decodeStreaming(.file(path: paddedPath), maxPixel: 100)
        #expect((rendered.width, rendered.height) == (100, 75))
        #expect(rendered.checksum() == expected.checksum())
    }

    static func write(_ data: Data, _ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("metadata-skipping-\(getpid())-\(UUID().uuidString)-\(name)").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }
}
