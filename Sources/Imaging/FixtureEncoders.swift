import CHEIFCodec
import CJPEGCodec
import CLibPNG
import CLibWebP
import CPNGCodec
import CWebPCodec
import Foundation

/// Encodes the fixture's pixels (jpegcodec_fixture_row, deterministic C) in any FixtureEncoding.
/// JPEG and PNG take rows in strips, so the whole RGB image never exists; libwebp and
/// libheif take a whole picture, so for them it does (in the parent, never in a measured child).
enum FixtureEncoders {
    /// The encoder library and its version, part of the fixture's cache key.
    static func version(of encoding: FixtureEncoding) -> String {
        switch encoding.format {
        case .jpeg: return "libjpeg\(jpegcodec_library_version())"
        case .png: return "libpng\(png_access_version_number())"
        case .webp: return "libwebp\(WebPGetEncoderVersion())"
        case .heic, .avif: return "libheif\(heifcodec_version().map { String(cString: $0) } ?? "-none")"
        }
    }

    static func encode(_ spec: FixtureSpec, pixels: OpaquePointer) throws -> Data {
        let encoding = spec.encoding
        switch encoding {
        case .jpeg, .jpegProgressive, .jpeg444, .jpegProgressive444:
            return try JPEGEncoder.encodeRGB(
                width: spec.width,
                height: spec.height,
                quality: spec.quality,
                progressive: encoding.isProgressive,
                fullChroma: encoding == .jpeg444 || encoding == .jpegProgressive444
            ) { y, row in
                jpegcodec_fixture_row(pixels, Int32(y), row)
            }
        case .pngRGB, .pngRGBInterlaced, .pngRGBA, .pngRGBAInterlaced:
            return try png(spec, pixels: pixels)
        case .webpLossy, .webpLossless:
            guard spec.width <= 16383, spec.height <= 16383 else {
                throw ImagingError.encodeFailed("WebP is at most 16383 pixels a side, got \(spec.width)x\(spec.height)")
            }
            return try withWholeRGB(spec, pixels: pixels) { rgb, out, size, message in
                let lossless = encoding == .webpLossless
                // Lossless at effort 0, method 0: the fastest; the pixels are noise and would not shrink much more.
                return webpcodec_encode_rgb(
                    rgb,
                    Int32(spec.width),
                    Int32(spec.height),
                    lossless ? 1 : 0,
                    lossless ? 0 : Float(spec.quality),
                    lossless ? 0 : 4,
                    out,
                    size,
                    message,
                    256
                )
            }
        case .heic, .avif:
            if let reason = HEIFDecoder.unavailableReason { throw ImagingError.encodeFailed(reason) }
            let av1: Int32 = encoding == .avif ? 1 : 0
            guard heifcodec_has_codec(av1, 0) != 0, heifcodec_has_codec(av1, 1) != 0 else {
                throw ImagingError.encodeFailed(
                    "this libheif has no \(encoding == .avif ? "AV1" : "HEVC") encoder and decoder"
                )
            }
            return try withWholeRGB(spec, pixels: pixels) { rgb, out, size, message in
                heifcodec_encode_rgb(
                    rgb,
                    Int32(spec.width),
                    Int32(spec.height),
                    av1,
                    Int32(spec.quality),
                    out,
                    size,
                    message,
                    256
                )
            }
        }
    }

    private static func png(_ spec: FixtureSpec, pixels: OpaquePointer) throws -> Data {
        try PNGEncoding.encode(
            width: spec.width,
            height: spec.height,
            alpha: spec.encoding.hasAlpha,
            interlaced: spec.encoding.isProgressive
        ) { y, row in
            jpegcodec_fixture_row(pixels, Int32(y), row)
        }
    }

    /// The whole RGB image, for encoders that take one picture; `encode` returns a shim status
    /// and a malloc'd buffer that the Data adopts.
    private static func withWholeRGB(
        _ spec: FixtureSpec,
        pixels: OpaquePointer,
        _ encode: (
            UnsafePointer<UInt8>, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>,
            UnsafeMutablePointer<CChar>
        ) -> Int32
    ) throws -> Data {
        let stride = spec.width * 3
        let rgb = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * spec.height)
        defer { rgb.deallocate() }
        for y in 0..<spec.height { jpegcodec_fixture_row(pixels, Int32(y), rgb + y * stride) }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { encode(rgb, &out, &size, $0.baseAddress!) }
        guard status == 0, let out else {
            throw ImagingError.encodeFailed("\(spec.encoding.format.displayName): \(String(messageBuffer: message))")
        }
        return Data(bytesNoCopy: out, count: size, deallocator: .free)
    }
}
