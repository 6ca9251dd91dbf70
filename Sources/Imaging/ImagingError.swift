import CJPEGCodec

/// What went wrong while inspecting, decoding, encoding or caching an image. The codec's own
/// message (or the OS error), prefixed with the format, is carried in the payload.
package enum ImagingError: Error, CustomStringConvertible, Equatable {
    /// None of the formats we decode, or a variant we do not (animated WebP): says what was found.
    case unsupportedImage(String)
    /// The bytes do not start like a JPEG (no SOI marker), or there are none.
    case notAJPEG(String)
    /// An image that cannot be decoded: corrupt, truncated, unsupported, or too large.
    case decodeFailed(String)
    case encodeFailed(String)
    /// Refused before decoding: the decode would allocate more than the pixel budget allows.
    case overBudget(String)
    /// A file could not be opened, read, written or renamed.
    case io(String)

    package var description: String {
        switch self {
        case .notAJPEG(let message): return "not a JPEG: \(message)"
        case .unsupportedImage(let found): return "unsupported image: \(found)"
        case .decodeFailed(let message): return "decode failed: \(message)"
        case .encodeFailed(let message): return "encode failed: \(message)"
        case .overBudget(let message): return "image refused: \(message)"
        case .io(let message): return "I/O error: \(message)"
        }
    }

    /// Maps a shim status code to an error (nil for JPEGCODEC_OK).
    static func decoding(status: Int32, message: String) -> ImagingError? {
        switch status {
        case JPEGCODEC_OK: return nil
        case JPEGCODEC_NOT_JPEG: return .notAJPEG(message)
        case JPEGCODEC_IO: return .io(message)
        default: return .decodeFailed("JPEG: \(message)")
        }
    }
}

extension String {
    /// The text a C shim wrote into a caller's message buffer, up to its NUL.
    init(messageBuffer: [CChar]) {
        self.init(decoding: messageBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
