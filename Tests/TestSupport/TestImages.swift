import CTestImages
import Foundation

/// Solid-colour images in encodings the product does not write (Tests/CTestImages).
public enum TestImages {
    public enum JPEGColorSpace: Int32, Sendable {
        case rgb = 0
        case cmyk = 1
        case ycck = 2
    }

    /// `color`: RGB, or CMYK as Adobe stores it (inverted: 255 is no ink) for .cmyk and .ycck.
    public static func jpeg(
        width: Int,
        height: Int,
        space: JPEGColorSpace,
        color: [UInt8],
        arithmetic: Bool = false
    ) throws -> Data {
        try encoded { out, size, message, messageSize in
            testimages_jpeg(
                Int32(width),
                Int32(height),
                space.rawValue,
                color,
                arithmetic ? 1 : 0,
                out,
                size,
                message,
                messageSize
            )
        }
    }

    /// An 8-bit palette PNG: the left half `left` (RGB), the right half `right`.
    public static func palettePNG(width: Int, height: Int, left: [UInt8], right: [UInt8]) throws -> Data {
        try encoded { out, size, message, messageSize in
            testimages_palette_png(Int32(width), Int32(height), left, right, out, size, message, messageSize)
        }
    }

    /// A PNG of `rgba` (width x height, 4 bytes a pixel) in any PNG colour type (0 gray, 2 RGB, 3
    /// palette, 4 gray+alpha, 6 RGBA) and bit depth, Adam7 when `interlaced`, with a tRNS chunk
    /// when `transparent` (see testimages_png for how the pixels map).
    public static func png(
        rgba: UnsafeRawPointer,
        width: Int,
        height: Int,
        colorType: Int,
        depth: Int,
        interlaced: Bool,
        transparent: Bool = false
    ) throws -> Data {
        try encoded { out, size, message, messageSize in
            testimages_png(
                rgba.assumingMemoryBound(to: UInt8.self),
                Int32(width),
                Int32(height),
                Int32(colorType),
                Int32(depth),
                interlaced ? 1 : 0,
                transparent ? 1 : 0,
                out,
                size,
                message,
                messageSize
            )
        }
    }

    public struct EncodeFailure: Error, CustomStringConvertible {
        public var description: String
    }

    private static func encoded(
        _ encode: (
            UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>,
            UnsafeMutablePointer<CChar>, Int
        ) -> Int32
    ) throws -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { encode(&out, &size, $0.baseAddress!, $0.count) }
        guard status == 0, let out else {
            throw EncodeFailure(
                description: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            )
        }
        defer { free(out) }
        return Data(bytes: out, count: size)
    }
}
