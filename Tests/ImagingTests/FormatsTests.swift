import CJPEGCodec
import Foundation
import Imaging
import Testing

/// Every encoding, from real files made by the real encoders (libjpeg-turbo, libpng, libwebp,
/// libheif with x265 and aom) and decoded by the real decoders: detection from the bytes,
/// dimensions, pixels against the source, thumbnails against a box filter, corrupt inputs.
@Suite struct FormatsTests {
    /// Odd sizes: not multiples of 8 (JPEG blocks), 16 (macroblocks) or 64 (x265's CTUs).
    static let width = 301, height = 203

    static func spec(_ encoding: FixtureEncoding) -> FixtureSpec {
        FixtureSpec(width: width, height: height, quality: 90, encoding: encoding)
    }

    /// The fixture's pixels as 8-bit RGBA, alpha as png-rgba writes it (255 elsewhere).
    static func sourceRGBA(_ encoding: FixtureEncoding) -> [UInt8] {
        let pixels = jpegcodec_fixture_create(Int32(width), Int32(height), 1, Int32(FixtureSpec.grainAmplitude))!
        defer { jpegcodec_fixture_destroy(pixels) }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        var row = [UInt8](repeating: 0, count: width * 3)
        for y in 0..<height {
            jpegcodec_fixture_row(pixels, Int32(y), &row)
            let dy = (2 * y - height) * 256 / height
            for x in 0..<width {
                for c in 0..<3 { rgba[(y * width + x) * 4 + c] = row[x * 3 + c] }
                if encoding.hasAlpha {
                    let dx = (2 * x - width) * 256 / width
                    rgba[(y * width + x) * 4 + 3] = UInt8(255 - (dx * dx + dy * dy) * 200 / 131072)
                }
            }
        }
        return rgba
    }

    static func bytes(_ image: DecodedImage) -> [UInt8] {
        Array(UnsafeBufferPointer(start: image.pixels.assumingMemoryBound(to: UInt8.self), count: image.byteCount))
    }

    static func meanAbsoluteError(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        return Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
    }

    /// The box filter the PNG thumbnail applies: output pixel (ox, oy) averages the source pixels
    /// with floor(x * ow / w) == ox and floor(y * oh / h) == oy, rounded to nearest.
    static func boxDownscale(_ rgba: [UInt8], width: Int, height: Int, to ow: Int, _ oh: Int) -> [UInt8] {
        var sums = [Int](repeating: 0, count: ow * oh * 4)
        var counts = [Int](repeating: 0, count: ow * oh)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * oh / height) * ow + x * ow / width
                counts[o] += 1
                for c in 0..<4 { sums[o * 4 + c] += Int(rgba[(y * width + x) * 4 + c]) }
            }
        }
        return sums.indices.map { UInt8((sums[$0] + counts[$0 / 4] / 2) / counts[$0 / 4]) }
    }

    static func nearestNeighbour(_ rgba: [UInt8], width: Int, height: Int, to ow: Int, _ oh: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: ow * oh * 4)
        for y in 0..<oh {
            for x in 0..<ow {
                let source = ((y * height / oh) * width + x * width / ow) * 4
                for c in 0..<4 { out[(y * ow + x) * 4 + c] = rgba[source + c] }
            }
        }
        return out
    }

    /// What each encoding's header must say.
    static func expectedInfo(_ encoding: FixtureEncoding) -> ImageInfo {
        var info = ImageInfo(
            format: encoding.format,
            width: width,
            height: height,
            progressive: encoding.isProgressive,
            bitDepth: 8,
            hasAlpha: encoding.hasAlpha
        )
        switch encoding {
        case .jpeg, .jpegProgressive: info.chromaSubsampling = "4:2:0"
        case .jpeg444, .jpegProgressive444: info.chromaSubsampling = "4:4:4"
        case .webpLossy: info.lossless = false
        case .webpLossless: info.lossless = true
        default: break
        }
        return info
    }

    @Test(arguments: FixtureEncoding.allCases)
    func detectedFromTheBytes(_ encoding: FixtureEncoding) throws {
        let data = try FixtureGenerator.make(Self.spec(encoding))
        #expect(try ImageInspector.inspect(data) == Self.expectedInfo(encoding))
        #expect(ImageInspector.sniff(data) == encoding.format)
        // A file named like another format is read by its bytes.
        let info = try withTemporaryFile(data) { try ImageDecoder.inspect(.file(path: $0)) }  // "image.jpg"
        #expect(info.format == encoding.format)
    }

    /// Lossless encodings decode to the source exactly; lossy ones within a bound (and not exactly).
    @Test(arguments: FixtureEncoding.allCases)
    func fullDecodeMatchesTheSource(_ encoding: FixtureEncoding) throws {
        let data = try FixtureGenerator.make(Self.spec(encoding))
        let image = try ImageDecoder.decodeFull(.memory(data))
        #expect((image.width, image.height) == (Self.width, Self.height))
        let fromFile = try withTemporaryFile(data) { try ImageDecoder.decodeFull(.file(path: $0)) }
        #expect(image.hasSamePixels(as: fromFile))
        #expect(image.checksum() == fromFile.checksum())
        let error = Self.meanAbsoluteError(Self.bytes(image), Self.sourceRGBA(encoding))
        switch encoding.format {
        case .png: #expect(error == 0, "\(encoding)")
        case .webp where encoding == .webpLossless: #expect(error == 0, "\(encoding)")
        default: #expect(error > 0.1 && error < 12, "\(encoding): mean absolute error \(error)")
        }
    }

    /// The thumbnail is ThumbnailSize's, from memory and file alike, and looks like the full image
    /// shrunk: PNG's streaming box filter exactly equals the box filter of its full decode.
    @Test(arguments: FixtureEncoding.allCases)
    func thumbnailIsTheFullImageShrunk(_ encoding: FixtureEncoding) throws {
        let data = try FixtureGenerator.make(Self.spec(encoding))
        let maxPixel = 100
        let size = ThumbnailSize.of(width: Self.width, height: Self.height, maxPixel: maxPixel)
        #expect(size == (113, 77))  // 3/8 of 301x203, rounded up
        let thumbnail = try ImageDecoder.decodeThumbnail(.memory(data), maxPixel: maxPixel)
        #expect((thumbnail.width, thumbnail.height) == size)
        let fromFile = try withTemporaryFile(data) {
            try ImageDecoder.decodeThumbnail(.file(path: $0), maxPixel: maxPixel)
        }
        #expect(thumbnail.hasSamePixels(as: fromFile))
        let full = try ImageDecoder.decodeFull(.memory(data))
        let reference = Self.boxDownscale(
            Self.bytes(full),
            width: full.width,
            height: full.height,
            to: size.width,
            size.height
        )
        let difference = Self.meanAbsoluteError(Self.bytes(thumbnail), reference)
        if encoding.format == .png {
            #expect(difference == 0, "\(encoding)")
        } else if encoding.format == .heic || encoding.format == .avif {
            // libheif 1.15 scales by nearest neighbour (HeifPixelImage::scale_nearest_neighbor), not an average.
            let nearest = Self.nearestNeighbour(
                Self.bytes(full),
                width: full.width,
                height: full.height,
                to: size.width,
                size.height
            )
            let fromNearest = Self.meanAbsoluteError(Self.bytes(thumbnail), nearest)
            #expect(
                fromNearest < 1,
                "\(encoding): mean difference from nearest neighbour \(fromNearest), from a box \(difference)"
            )
        } else {
            // DCT scaling, libwebp's and libheif's rescalers are not a box filter, but close to one.
            #expect(difference < 8, "\(encoding): mean difference from a box filter \(difference)")
        }
    }

    @Test(arguments: FixtureEncoding.allCases)
    func aTruncatedFileIsADecodeErrorNamingTheFormat(_ encoding: FixtureEncoding) throws {
        let data = try FixtureGenerator.make(Self.spec(encoding))
        let truncated = data.prefix(data.count / 2)
        for decode in [
            { try ImageDecoder.decodeFull(.memory(truncated)) },
            { try ImageDecoder.decodeThumbnail(.memory(truncated), maxPixel: 100) },
        ] {
            do {
                _ = try decode()
                Issue.record("\(encoding): a truncated file decoded")
            } catch let error as ImagingError {
                #expect(error.kind == "decodeFailed", "\(encoding): \(error)")
                #expect(error.description.contains(encoding.format.displayName), "\(encoding): \(error)")
            }
        }
    }

    @Test func aCorruptPNGNamesWhatLibpngFound() throws {
        var data = try FixtureGenerator.make(Self.spec(.pngRGB))
        data[data.startIndex + data.count / 2] ^= 0xFF  // inside IDAT: its CRC no longer matches
        #expect(throws: ImagingError.decodeFailed("PNG: IDAT: CRC error")) {
            try ImageDecoder.decodeFull(.memory(data))
        }
    }

    @Test func theBudgetCoversEveryFormat() throws {
        for encoding in [FixtureEncoding.pngRGB, .webpLossy, .heic] {
            let data = try FixtureGenerator.make(Self.spec(encoding))
            #expect(throws: ImagingError.self) { try ImageDecoder.decodeFull(.memory(data), maxImagePixels: 1000) }
            do {
                _ = try ImageDecoder.decodeFull(.memory(data), maxImagePixels: 1000)
            } catch let error as ImagingError {
                #expect(error.kind == "overBudget" && error.description.contains("--max-image-pixels"), "\(error)")
            }
        }
    }
}
