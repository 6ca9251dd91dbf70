import Foundation
import Imaging
import TestSupport
import Testing

/// The stream renderer on every encoding besides JPEG: the output size, the pixels against each
/// format's full decode, the file read in chunks against the body in memory, and hostile input.
@Suite struct StreamFormatsTests {
    /// Odd sizes: every Adam7 pass is uneven, and no side is a multiple of 8, 16 or 64.
    static func fixture(_ encoding: FixtureEncoding) throws -> Data {
        try FixtureGenerator.make(FixtureSpec(width: 613, height: 411, quality: 90, encoding: encoding))
    }

    static let pngEncodings: [FixtureEncoding] = [.pngRGB, .pngRGBA, .pngRGBInterlaced, .pngRGBAInterlaced]
    static let otherEncodings: [FixtureEncoding] = FixtureEncoding.allCases.filter { $0.format != .jpeg }

    /// PNG rows go through the same resampler as the full decode would: within 1 of it (rows,
    /// interlaced or not, equal libpng's), from memory and from the file.
    @Test(arguments: pngEncodings)
    func pngIsItsFullDecodeResampled(_ encoding: FixtureEncoding) throws {
        let file = try Self.fixture(encoding)
        let full = try ImageDecoder.decodeFull(.memory(file))
        let expected = try StreamResampling.areaAveraged(full, width: 200, height: 134)
        let fromMemory = try ImageDecoder.decodeStreaming(.memory(file), maxPixel: 200)
        let fromFile = try withTemporaryFile(file) { try ImageDecoder.decodeStreaming(.file(path: $0), maxPixel: 200) }
        for image in [fromMemory, fromFile] {
            #expect((image.width, image.height) == (200, 134))
            #expect(Self.largestDifference(image, expected) <= 1, "\(encoding)")
        }
    }

    struct Layout: Sendable, CustomTestStringConvertible {
        var colorType: Int, depth: Int, transparent = false
        var testDescription: String { "type \(colorType), \(depth) bits" + (transparent ? ", tRNS" : "") }
    }

    static let layouts: [Layout] =
        [1, 2, 4, 8, 16].map { Layout(colorType: 0, depth: $0) }
        + [1, 2, 4, 8].map { Layout(colorType: 3, depth: $0) }
        + [8, 16].flatMap {
            [
                Layout(colorType: 2, depth: $0), Layout(colorType: 4, depth: $0),
                Layout(colorType: 6, depth: $0),
            ]
        }
        + [
            Layout(colorType: 0, depth: 4, transparent: true), Layout(colorType: 0, depth: 16, transparent: true),
            Layout(colorType: 2, depth: 8, transparent: true), Layout(colorType: 2, depth: 16, transparent: true),
            Layout(colorType: 3, depth: 2, transparent: true), Layout(colorType: 3, depth: 8, transparent: true),
        ]

    /// Adam7 files are read with our own zlib reader, unfiltering and expansion: every colour type
    /// and bit depth gives the rows libpng's full decode gives, so the same resampler makes the same
    /// output of them (at their own size, where it copies, for the smallest, whose passes are empty).
    @Test(arguments: layouts)
    func interlacedPNGOfEveryLayoutIsLibpngsDecode(_ layout: Layout) throws {
        let source = try ImageDecoder.decodeFull(.memory(Self.fixture(.pngRGBA)))
        for (width, height) in [(1, 1), (3, 2), (5, 9), (37, 29), (613, 411)] {
            let crop = try Self.crop(source, width: width, height: height)
            let file = try TestImages.png(
                rgba: crop.pixels,
                width: width,
                height: height,
                colorType: layout.colorType,
                depth: layout.depth,
                interlaced: true,
                transparent: layout.transparent
            )
            let maxPixel = max(width, height) > 4 ? max(width, height) * 2 / 3 : max(width, height)
            let size = StreamResampling.outputSize(width: width, height: height, maxPixel: maxPixel)
            let libpng = try StreamResampling.areaAveraged(
                ImageDecoder.decodeFull(.memory(file)),
                width: size.width,
                height: size.height
            )
            let ours = try ImageDecoder.decodeStreaming(.memory(file), maxPixel: maxPixel)
            #expect(Self.largestDifference(ours, libpng) == 0, "\(layout) at \(width)x\(height)")
        }
    }

    /// WebP lossless, scaled by libwebp, is within 1 of its full decode put through our resampler.
    @Test func webpLosslessIsItsFullDecodeResampled() throws {
        let file = try Self.fixture(.webpLossless)
        let full = try ImageDecoder.decodeFull(.memory(file))
        let expected = try StreamResampling.areaAveraged(full, width: 200, height: 134)
        let ours = try withTemporaryFile(file) { try ImageDecoder.decodeStreaming(.file(path: $0), maxPixel: 200) }
        #expect((ours.width, ours.height) == (200, 134))
        #expect(Self.largestDifference(ours, expected) <= 1)
    }

    /// Every encoding's render is at least 35 dB from its full decode area-averaged to the same size.
    @Test(arguments: otherEncodings)
    func rendersCloseToTheFullDecodeAveraged(_ encoding: FixtureEncoding) throws {
        let file = try Self.fixture(encoding)
        let ours = try withTemporaryFile(file) { try ImageDecoder.decodeStreaming(.file(path: $0), maxPixel: 300) }
        #expect((ours.width, ours.height) == (300, 201))
        let full = try ImageDecoder.decodeFull(.memory(file))
        let expected = try StreamResampling.areaAveraged(full, width: 300, height: 201)
        let decibels = Self.peakSignalToNoise(ours, expected)
        #expect(decibels >= 35, "\(encoding): \(decibels) dB")
    }

    /// The file, read in chunks, and the body in memory, read in place, render alike.
    @Test(arguments: otherEncodings)
    func fileAndMemoryRenderAlike(_ encoding: FixtureEncoding) throws {
        let file = try Self.fixture(encoding)
        let fromMemory = try ImageDecoder.decodeStreaming(.memory(file), maxPixel: 256)
        let fromFile = try withTemporaryFile(file) { try ImageDecoder.decodeStreaming(.file(path: $0), maxPixel: 256) }
        #expect((fromFile.width, fromFile.height) == (256, 172))
        #expect(Self.largestDifference(fromMemory, fromFile) == 0, "\(encoding)")
    }

    // MARK: Hostile input: a decode error that names the problem

    /// An interlaced PNG cut short, its image data corrupted, or a row's filter type out of range.
    @Test func brokenInterlacedPNGIsRefused() throws {
        let file = try Self.fixture(.pngRGBInterlaced)
        let data = try #require(file.firstRange(of: Data("IDAT".utf8))).upperBound
        var badCRC = file
        badCRC[data + 100] ^= 0x55
        let badFilter = Self.storedInterlacedPNG(firstFilter: 9)
        let valid = try ImageDecoder.decodeStreaming(.memory(Self.storedInterlacedPNG(firstFilter: 0)), maxPixel: 8)
        #expect((valid.width, valid.height) == (8, 8))
        let cases: [(Data, String)] = [
            (file.prefix(file.count / 2), "the image data ends early, in Adam7 pass"),
            (badCRC, "IDAT: CRC error"),
            (badFilter, "bad adaptive filter type 9"),
        ]
        for (body, message) in cases {
            for useFile in [false, true] {
                #expect {
                    if useFile {
                        _ = try withTemporaryFile(body) {
                            try ImageDecoder.decodeStreaming(.file(path: $0), maxPixel: 32)
                        }
                    } else {
                        _ = try ImageDecoder.decodeStreaming(.memory(body), maxPixel: 32)
                    }
                } throws: { "\($0)".contains(message) && ($0 as? ImagingError)?.kind == "decodeFailed" }
            }
        }
    }

    /// A lossy WebP cut short, read from the file by the incremental decoder.
    @Test func truncatedWebPFileIsRefused() throws {
        let file = try Self.fixture(.webpLossy)
        #expect {
            _ = try withTemporaryFile(file.prefix(file.count * 2 / 3)) {
                try ImageDecoder.decodeStreaming(.file(path: $0), maxPixel: 64)
            }
        } throws: { "\($0)".contains("before the image is complete") && ($0 as? ImagingError)?.kind == "decodeFailed" }
    }

    // MARK: Helpers

    static func crop(_ image: DecodedImage, width: Int, height: Int) throws -> DecodedImage {
        let out = try DecodedImage(width: width, height: height)
        for y in 0..<height {
            out.pixels.advanced(by: y * width * 4).copyMemory(
                from: image.pixels.advanced(by: y * image.width * 4),
                byteCount: width * 4
            )
        }
        return out
    }

    /// An 8x8 RGB Adam7 PNG written by hand (its zlib stream one stored block, so every byte is
    /// chosen): every row's filter type 0 but the first, `firstFilter`; CRCs and Adler-32 correct.
    static func storedInterlacedPNG(firstFilter: UInt8) -> Data {
        let passes = [(1, 1), (1, 1), (2, 1), (2, 2), (4, 2), (4, 4), (8, 4)]  // columns, rows
        var raw = [UInt8]()
        for (columns, rows) in passes {
            for _ in 0..<rows { raw += [0] + (0..<columns * 3).map { UInt8(truncatingIfNeeded: $0 &* 37) } }
        }
        raw[0] = firstFilter
        var adler: (UInt32, UInt32) = (1, 0)
        for byte in raw {
            adler.0 = (adler.0 + UInt32(byte)) % 65521
            adler.1 = (adler.1 + adler.0) % 65521
        }
        let length = UInt16(raw.count)
        let stored = [0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
        let zlib = [0x78, 0x01] + stored + raw + bigEndian(adler.1 << 16 | adler.0)
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
        }
        let header = bigEndian(8) + bigEndian(8) + [8, 2, 0, 0, 1]  // 8x8, 8 bits, RGB, Adam7
        return Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib)
                + chunk("IEND", [])
        )
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func largestDifference(_ a: DecodedImage, _ b: DecodedImage) -> Int {
        guard (a.width, a.height) == (b.width, b.height) else { return Int.max }
        let x = a.pixels.assumingMemoryBound(to: UInt8.self)
        let y = b.pixels.assumingMemoryBound(to: UInt8.self)
        return (0..<a.byteCount).reduce(0) { max($0, abs(Int(x[$1]) - Int(y[$1]))) }
    }

    /// Over the colour channels.
    static func peakSignalToNoise(_ a: DecodedImage, _ b: DecodedImage) -> Double {
        let x = a.pixels.assumingMemoryBound(to: UInt8.self)
        let y = b.pixels.assumingMemoryBound(to: UInt8.self)
        var squared = 0.0
        var count = 0
        for index in 0..<a.byteCount where index % 4 != 3 {
            let difference = Double(x[index]) - Double(y[index])
            squared += difference * difference
            count += 1
        }
        return 10 * log10(255 * 255 / max(squared / Double(count), 1e-12))
    }
}
