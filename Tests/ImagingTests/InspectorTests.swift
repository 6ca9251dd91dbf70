import Foundation
import Imaging
import Testing

/// Format detection from the bytes alone. Real encoder output where the project has the
/// encoder; headers built byte by byte per the format's spec for the others.
@Suite struct InspectorTests {
    @Test func baselineJPEG() throws {
        let info = try ImageInspector.inspect(Fixtures.small)
        #expect(
            info
                == ImageInfo(
                    format: .jpeg,
                    width: 1000,
                    height: 800,
                    progressive: false,
                    chromaSubsampling: "4:2:0",
                    bitDepth: 8,
                    hasAlpha: false,
                    lossless: nil
                )
        )
    }

    @Test func progressiveJPEG() throws {
        let progressive = try FixtureGenerator.makeJPEG(FixtureSpec(width: 64, height: 48, progressive: true))
        let info = try ImageInspector.inspect(progressive)
        #expect(info.progressive)
        #expect((info.width, info.height) == (64, 48))
    }

    @Test func jpegSubsamplingFromSamplingFactors() {
        #expect(JPEGHeader.subsampling([(1, 1)]) == "gray")
        #expect(JPEGHeader.subsampling([(2, 2), (1, 1), (1, 1)]) == "4:2:0")
        #expect(JPEGHeader.subsampling([(2, 1), (1, 1), (1, 1)]) == "4:2:2")
        #expect(JPEGHeader.subsampling([(1, 1), (1, 1), (1, 1)]) == "4:4:4")
        #expect(JPEGHeader.subsampling([(2, 2), (1, 1), (1, 1), (2, 2)]) == "2x2,1x1,1x1,2x2")
    }

    @Test func pngHeader() throws {
        let rgba = HeaderBytes.png(width: 300, height: 200, depth: 8, colorType: 6, interlace: 1)
        #expect(
            try ImageInspector.inspect(rgba)
                == ImageInfo(format: .png, width: 300, height: 200, progressive: true, bitDepth: 8, hasAlpha: true)
        )
        let rgb = HeaderBytes.png(width: 300, height: 200, depth: 16, colorType: 2, interlace: 0)
        #expect(
            try ImageInspector.inspect(rgb)
                == ImageInfo(format: .png, width: 300, height: 200, progressive: false, bitDepth: 16, hasAlpha: false)
        )
    }

    @Test func detectionIgnoresTheFileNameAndLeadingGarbageIsRefused() throws {
        // The same bytes behind a JPEG-looking prefix are not a PNG: detection is the signature at 0.
        var shifted = Data([0, 0])
        shifted.append(HeaderBytes.png(width: 1, height: 1, depth: 8, colorType: 2, interlace: 0))
        #expect(throws: ImagingError.self) { try ImageInspector.inspect(shifted) }
        #expect(ImageInspector.sniff(Fixtures.small) == .jpeg)
    }

    @Test func unknownInputNamesWhatWasFound() {
        let gif = Data("GIF89a\u{01}\u{00}\u{01}\u{00}".utf8)
        #expect(
            throws: ImagingError.unsupportedImage(
                "10 bytes starting 47 49 46 38 39 61 01 00 (GIF); expected one of JPEG, PNG, WebP, HEIC, AVIF"
            )
        ) {
            try ImageInspector.inspect(gif)
        }
        #expect(
            throws: ImagingError.unsupportedImage("no bytes (empty body); expected one of JPEG, PNG, WebP, HEIC, AVIF")
        ) {
            try ImageInspector.inspect(Data())
        }
    }

    @Test func truncatedHeadersNameTheFormat() {
        let png = HeaderBytes.png(width: 10, height: 10, depth: 8, colorType: 2, interlace: 0).prefix(20)
        #expect(throws: ImagingError.decodeFailed("PNG: truncated or missing IHDR chunk (20 bytes)")) {
            try ImageInspector.inspect(Data(png))
        }
        #expect(throws: ImagingError.decodeFailed("JPEG: truncated before its frame header (SOF) (3 bytes)")) {
            try ImageInspector.inspect(Data([0xFF, 0xD8, 0xFF]))
        }
    }
}

/// Headers written byte by byte from the formats' specifications.
enum HeaderBytes {
    static func png(width: Int, height: Int, depth: UInt8, colorType: UInt8, interlace: UInt8) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        bytes += Array("IHDR".utf8) + be32(width) + be32(height) + [depth, colorType, 0, 0, interlace] + [0, 0, 0, 0]
        bytes += [0, 0, 0, 0] + Array("IDAT".utf8) + [0, 0, 0, 0]
        return Data(bytes)
    }

    static func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
}
