import Foundation
import Imaging
import Testing

@Suite struct DecoderTests {
    @Test func fullDecodeFromMemory() throws {
        let image = try JPEGDecoder.decodeFull(.memory(Fixtures.small))
        #expect(image.width == 1000)
        #expect(image.height == 800)
        #expect(image.bytesPerPixel == 4)
        #expect(image.byteCount == 1000 * 800 * 4)
        // RGBA: every alpha byte is opaque.
        let bytes = image.pixels.assumingMemoryBound(to: UInt8.self)
        #expect(stride(from: 3, to: image.byteCount, by: 4 * 997).allSatisfy { bytes[$0] == 255 })
    }

    @Test func memoryAndFileDecodeToTheSamePixels() throws {
        let fromMemory = try JPEGDecoder.decodeFull(.memory(Fixtures.small))
        let fromFile = try withTemporaryFile(Fixtures.small) { try JPEGDecoder.decodeFull(.file(path: $0)) }
        #expect(fromMemory.checksum() == fromFile.checksum())
        #expect(fromMemory.hasSamePixels(as: fromFile))
    }

    @Test func imageSizeReadsTheHeader() throws {
        #expect(try JPEGDecoder.imageSize(of: .memory(Fixtures.small)) == (1000, 800))
        let fromFile = try withTemporaryFile(Fixtures.small) { try JPEGDecoder.imageSize(of: .file(path: $0)) }
        #expect(fromFile == (1000, 800))
    }

    @Test func articleFullDecodeAndThumbnail() throws {
        let full = try JPEGDecoder.decodeFull(.memory(Fixtures.article))
        #expect((full.width, full.height, full.byteCount) == (6000, 4000, 96_000_000))

        let thumbnail = try JPEGDecoder.decodeThumbnail(.memory(Fixtures.article), maxPixel: 1024)
        #expect((thumbnail.width, thumbnail.height) == (1500, 1000))
        let fromFile = try withTemporaryFile(Fixtures.article) {
            try JPEGDecoder.decodeThumbnail(.file(path: $0), maxPixel: 1024)
        }
        #expect(thumbnail.hasSamePixels(as: fromFile))
    }

    @Test(arguments: [
        // (width, height, maxPixel, expected numerator)
        (6000, 4000, 1024, 2),
        (4000, 6000, 1024, 2),  // portrait: the long side counts
        (6000, 4000, 750, 1),
        (6000, 4000, 751, 2),
        (6000, 4000, 6000, 8),
        (6000, 4000, 9000, 8),  // even full size is smaller: 8/8
        (1000, 800, 1024, 8),
        (1000, 800, 500, 4),
        (1000, 800, 125, 1),
        (1000, 800, 126, 2),
        (1001, 800, 126, 1),  // 1001/8 rounds up to 126, as libjpeg does
        (100, 100, 0, 1),
    ])
    func thumbnailScale(width: Int, height: Int, maxPixel: Int, numerator: Int) {
        let scale = JPEGDecoder.thumbnailScale(width: width, height: height, maxPixel: maxPixel)
        #expect(scale.numerator == numerator)
        #expect(scale.denominator == 8)
    }

    @Test func smallThumbnailMatchesTheScaleMath() throws {
        // 1000x800 with 300: 3/8 gives 375x300.
        let image = try JPEGDecoder.decodeThumbnail(.memory(Fixtures.small), maxPixel: 300)
        #expect((image.width, image.height) == (375, 300))
        // Asking for more than the image has decodes it at full size.
        let full = try JPEGDecoder.decodeThumbnail(.memory(Fixtures.small), maxPixel: 5000)
        #expect((full.width, full.height) == (1000, 800))
    }

    @Test func checksumIsStableAndSensitive() throws {
        // Two separate decodes of the same bytes (two bitmaps) give one checksum; other pixels another.
        let a = try JPEGDecoder.decodeFull(.memory(Fixtures.small))
        let again = try JPEGDecoder.decodeFull(
            .memory(FixtureGenerator.makeJPEG(FixtureSpec(width: 1000, height: 800)))
        )
        let b = try JPEGDecoder.decodeFull(
            .memory(FixtureGenerator.makeJPEG(FixtureSpec(width: 1000, height: 800, seed: 2)))
        )
        #expect(a.pixels != again.pixels)
        #expect(a.checksum() == again.checksum())
        #expect(a.checksum() != b.checksum())
    }
}

@Suite struct DecoderErrorTests {
    @Test(arguments: [
        Data("this is not a jpeg, just some text".utf8),
        Data(),
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),  // a PNG signature
    ])
    func nonJPEGBytesAreNotAJPEG(bytes: Data) {
        let error = #expect(throws: ImagingError.self) { try JPEGDecoder.decodeFull(.memory(bytes)) }
        #expect(error?.kind == "notAJPEG")
        #expect(throws: ImagingError.self) { try JPEGDecoder.imageSize(of: .memory(bytes)) }
        #expect(throws: ImagingError.self) { try JPEGDecoder.decodeThumbnail(.memory(bytes), maxPixel: 100) }
    }

    @Test func garbageAfterTheSOIMarkerFails() {
        var bytes = Data([0xFF, 0xD8])
        bytes.append(contentsOf: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        let error = #expect(throws: ImagingError.self) { try JPEGDecoder.decodeFull(.memory(bytes)) }
        #expect(["notAJPEG", "decodeFailed"].contains(error?.kind))
    }

    @Test func truncatedBodyIsADecodeFailure() throws {
        let half = Fixtures.small.prefix(Fixtures.small.count / 2)
        // The header survives, so the size is still readable ...
        #expect(try JPEGDecoder.imageSize(of: .memory(half)) == (1000, 800))
        // ... but the pixels are not: libjpeg's "premature end" warning is an error.
        let error = #expect(throws: ImagingError.self) { try JPEGDecoder.decodeFull(.memory(half)) }
        #expect(error?.kind == "decodeFailed")
        #expect(throws: ImagingError.self) { try JPEGDecoder.decodeThumbnail(.memory(half), maxPixel: 200) }
        try withTemporaryFile(Data(half)) { path in
            let error = #expect(throws: ImagingError.self) { try JPEGDecoder.decodeFull(.file(path: path)) }
            #expect(error?.kind == "decodeFailed")
        }
    }

    @Test func truncatedHeaderFails() {
        let header = Fixtures.small.prefix(100)
        #expect(throws: ImagingError.self) { try JPEGDecoder.imageSize(of: .memory(header)) }
    }

    @Test func missingFileIsAnIOError() {
        let path = "/nonexistent-\(UUID().uuidString)/image.jpg"
        for call in [
            { _ = try JPEGDecoder.decodeFull(.file(path: path)) },
            { _ = try JPEGDecoder.decodeThumbnail(.file(path: path), maxPixel: 100) },
            { _ = try JPEGDecoder.imageSize(of: .file(path: path)) },
        ] {
            let error = #expect(throws: ImagingError.self) { try call() }
            #expect(error?.kind == "io")
            #expect(error?.description.contains(path) == true)
        }
    }
}
