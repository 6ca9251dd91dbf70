import Foundation
import Imaging
import TestSupport
import Testing

/// JPEGs in CMYK and YCCK (as Photoshop writes them, with an Adobe marker and inverted CMYK),
/// arithmetic-coded JPEGs and palette PNGs, made by the real libjpeg and libpng (Tests/CTestImages).
@Suite struct ColorSpaceTests {
    /// The RGBA pixel at (x, y).
    static func pixel(_ image: DecodedImage, _ x: Int, _ y: Int) -> [Int] {
        (0..<4).map { Int(image.pixels.load(fromByteOffset: (y * image.width + x) * 4 + $0, as: UInt8.self)) }
    }

    static func expectClose(
        _ actual: [Int],
        _ expected: [Int],
        tolerance: Int,
        _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            zip(actual, expected).allSatisfy { abs($0 - $1) <= tolerance },
            "\(actual) against \(expected) \(comment?.description ?? "")",
            sourceLocation: sourceLocation
        )
    }

    /// Stored CMYK (inverted: 255 is no ink) and the RGB it means: R = C * K / 255.
    static let colours: [(stored: [UInt8], rgb: [Int])] = [
        ([255, 0, 0, 255], [255, 0, 0]),  // red: full magenta and yellow ink
        ([0, 0, 255, 255], [0, 0, 255]),  // blue: full cyan and magenta ink
        ([128, 255, 255, 200], [100, 200, 200]),
    ]

    @Test(arguments: [TestImages.JPEGColorSpace.cmyk, .ycck])
    func cmykAndYCCKDecodeToTheirColour(space: TestImages.JPEGColorSpace) throws {
        for colour in Self.colours {
            let jpeg = try TestImages.jpeg(width: 64, height: 48, space: space, color: colour.stored)
            let full = try ImageDecoder.decodeFull(.memory(jpeg))
            #expect((full.width, full.height) == (64, 48))
            for (x, y) in [(0, 0), (32, 24), (63, 47)] {
                Self.expectClose(Self.pixel(full, x, y), colour.rgb + [255], tolerance: 6, "\(space) full at \(x),\(y)")
            }
            let thumbnail = try ImageDecoder.decodeThumbnail(.memory(jpeg), maxPixel: 16)
            #expect((thumbnail.width, thumbnail.height) == (16, 12))
            Self.expectClose(Self.pixel(thumbnail, 8, 6), colour.rgb + [255], tolerance: 6, "\(space) thumbnail")
        }
    }

    @Test func cmykFromAFileDecodesToo() throws {
        let jpeg = try TestImages.jpeg(width: 40, height: 30, space: .cmyk, color: Self.colours[0].stored)
        try withTemporaryFile(jpeg) { path in
            let image = try ImageDecoder.decodeFull(.file(path: path))
            Self.expectClose(Self.pixel(image, 20, 15), [255, 0, 0, 255], tolerance: 6)
        }
    }

    @Test func arithmeticCodingIsNamedAndDecodes() throws {
        let jpeg = try TestImages.jpeg(width: 48, height: 32, space: .rgb, color: [20, 140, 220], arithmetic: true)
        let info = try ImageInspector.inspect(jpeg)
        #expect(info.arithmeticCoding && !info.progressive)
        #expect(info.summary == "JPEG 48x32 arithmetic 4:2:0 8-bit")
        let huffman = try ImageInspector.inspect(
            TestImages.jpeg(width: 48, height: 32, space: .rgb, color: [20, 140, 220])
        )
        #expect(!huffman.arithmeticCoding)
        Self.expectClose(
            Self.pixel(try ImageDecoder.decodeFull(.memory(jpeg)), 24, 16),
            [20, 140, 220, 255],
            tolerance: 6
        )
    }

    @Test func palettePNGIsNamedAndDecodes() throws {
        let png = try TestImages.palettePNG(width: 20, height: 10, left: [250, 10, 10], right: [10, 10, 250])
        let info = try ImageInspector.inspect(png)
        #expect(info.palette && !info.hasAlpha)
        #expect(info.summary == "PNG 20x10 palette 8-bit")
        #expect(
            try !ImageInspector.inspect(HeaderBytes.png(width: 4, height: 4, depth: 8, colorType: 2, interlace: 0))
                .palette
        )
        let image = try ImageDecoder.decodeFull(.memory(png))
        #expect(Self.pixel(image, 0, 0) == [250, 10, 10, 255])
        #expect(Self.pixel(image, 19, 9) == [10, 10, 250, 255])
    }
}
