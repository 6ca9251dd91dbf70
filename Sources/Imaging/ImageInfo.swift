/// The image formats the harness can detect and decode.
package enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, webp, heic, avif

    /// The name people write, for messages: "JPEG", "WebP".
    package var displayName: String {
        switch self {
        case .jpeg: return "JPEG"
        case .png: return "PNG"
        case .webp: return "WebP"
        case .heic: return "HEIC"
        case .avif: return "AVIF"
        }
    }

    /// "JPEG, PNG, WebP, HEIC, AVIF": the valid choices, named in errors.
    package static var supportedList: String { allCases.map(\.displayName).joined(separator: ", ") }
}

/// What an image's header says about it, read without decoding any pixels.
package struct ImageInfo: Sendable, Equatable, Codable {
    package var format: ImageFormat
    package var width: Int
    package var height: Int
    /// JPEG: progressive (or any multi-scan) coding; PNG: Adam7 interlacing. Both make the
    /// decoder hold the whole image before the first output row.
    package var progressive: Bool
    /// JPEG only: "4:2:0", "4:2:2", "4:4:4", "gray", or the sampling factors when unusual.
    package var chromaSubsampling: String?
    /// Bits per sample as stored (PNG 1...16, JPEG 8 or 12, HEIF from its pixi box).
    package var bitDepth: Int
    package var hasAlpha: Bool
    /// WebP: true for VP8L (lossless), false for VP8 (lossy); nil for other formats.
    package var lossless: Bool?
    /// JPEG: arithmetic entropy coding (SOF9 to SOF15) instead of Huffman.
    package var arithmeticCoding: Bool
    /// PNG: colour type 3, indexes into a palette (expanded to RGB(A) when decoded).
    package var palette: Bool

    package init(
        format: ImageFormat,
        width: Int,
        height: Int,
        progressive: Bool = false,
        chromaSubsampling: String? = nil,
        bitDepth: Int = 8,
        hasAlpha: Bool = false,
        lossless: Bool? = nil,
        arithmeticCoding: Bool = false,
        palette: Bool = false
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.progressive = progressive
        self.chromaSubsampling = chromaSubsampling
        self.bitDepth = bitDepth
        self.hasAlpha = hasAlpha
        self.lossless = lossless
        self.arithmeticCoding = arithmeticCoding
        self.palette = palette
    }

    /// The largest side the inspector accepts: the C codecs take sizes as `int`. Two such sides
    /// still multiply within an `Int`; byte counts from them saturate (`Saturating`).
    package static let maxSide = Int(Int32.max)

    /// width x height; Int.max when that overflows (an ImageInfo made by hand: the inspector
    /// refuses sides over `maxSide`).
    package var pixelCount: Int { Saturating.product(width, height) }

    /// One line for messages and tables: "PNG 6000x4000 RGBA interlaced 8-bit".
    package var summary: String {
        var parts = ["\(format.displayName) \(width)x\(height)"]
        if progressive { parts.append(format == .png ? "interlaced" : "progressive") }
        if arithmeticCoding { parts.append("arithmetic") }
        if palette { parts.append("palette") }
        if let chromaSubsampling { parts.append(chromaSubsampling) }
        if let lossless { parts.append(lossless ? "lossless" : "lossy") }
        if hasAlpha { parts.append("alpha") }
        parts.append("\(bitDepth)-bit")
        return parts.joined(separator: " ")
    }
}
