import Foundation

/// Where an image's encoded bytes are, in any format: already in memory, or in a file that is
/// streamed where the codec can.
public enum EncodedImage: Sendable {
    case memory(Data)
    case file(path: String)
}

/// The name `EncodedImage` had when only JPEG was decoded.
@available(*, deprecated, renamed: "EncodedImage")
public typealias JPEGSource = EncodedImage
