/// How a fixture's pixels are encoded: every common encoding of a photo, so the same
/// picture can be measured in each. The raw value is the name on the command line.
package enum FixtureEncoding: String, Sendable, CaseIterable, Codable {
    case jpeg  // baseline, 4:2:0 (the article's)
    case jpegProgressive = "jpeg-progressive"
    case jpeg444 = "jpeg-444"  // baseline, no chroma subsampling
    case jpegProgressive444 = "jpeg-progressive-444"
    case pngRGB = "png-rgb"
    case pngRGBInterlaced = "png-rgb-interlaced"
    case pngRGBA = "png-rgba"
    case pngRGBAInterlaced = "png-rgba-interlaced"
    case webpLossy = "webp-lossy"
    case webpLossless = "webp-lossless"
    case heic
    case avif

    package var format: ImageFormat {
        switch self {
        case .jpeg, .jpegProgressive, .jpeg444, .jpegProgressive444: return .jpeg
        case .pngRGB, .pngRGBInterlaced, .pngRGBA, .pngRGBAInterlaced: return .png
        case .webpLossy, .webpLossless: return .webp
        case .heic: return .heic
        case .avif: return .avif
        }
    }

    /// Progressive JPEG or Adam7 PNG: the decoder holds the whole image before output.
    package var isProgressive: Bool {
        [.jpegProgressive, .jpegProgressive444, .pngRGBInterlaced, .pngRGBAInterlaced].contains(self)
    }

    package var hasAlpha: Bool { self == .pngRGBA || self == .pngRGBAInterlaced }

    /// The file name's extension.
    package var fileExtension: String {
        switch format {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .webp: return "webp"
        case .heic: return "heic"
        case .avif: return "avif"
        }
    }

    /// "image/png", for the server's Content-Type.
    package var mimeType: String {
        switch format {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .webp: return "image/webp"
        case .heic: return "image/heic"
        case .avif: return "image/avif"
        }
    }

    /// One line each, for help text and `bench list`.
    package var summary: String {
        switch self {
        case .jpeg: return "baseline JPEG, 4:2:0 (the article's)"
        case .jpegProgressive: return "progressive JPEG, 4:2:0"
        case .jpeg444: return "baseline JPEG, 4:4:4 (no chroma subsampling)"
        case .jpegProgressive444: return "progressive JPEG, 4:4:4"
        case .pngRGB: return "PNG, 8-bit RGB"
        case .pngRGBInterlaced: return "PNG, 8-bit RGB, Adam7 interlaced"
        case .pngRGBA: return "PNG, 8-bit RGBA (a vignette alpha)"
        case .pngRGBAInterlaced: return "PNG, 8-bit RGBA, Adam7 interlaced"
        case .webpLossy: return "WebP lossy (VP8)"
        case .webpLossless: return "WebP lossless (VP8L)"
        case .heic: return "HEIC (HEVC, libheif with x265)"
        case .avif: return "AVIF (AV1, libheif with aom)"
        }
    }

    /// "jpeg, jpeg-progressive, ...": the valid names, for errors.
    package static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
