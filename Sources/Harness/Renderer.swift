import BenchCore
import Foundation
import Imaging
import Strategies

/// The built-in renderers (RendererCatalog holds them with a user's); the scenarios call it directly.
/// Stands in for "show the image in an image view": decodes the payload, whatever its format
/// (found from the bytes), with that format's C library. Bodies in memory are decoded from
/// memory; files are decoded from the file.
package enum Renderer {
    /// Returns the decoded image, which the caller keeps alive while measuring (it is "on screen").
    /// Images whose decode would allocate more than `maxImagePixels` RGBA pixels are refused
    /// (ImagingError.overBudget) before anything is allocated.
    package static func render(
        _ payload: Payload,
        mode: RenderMode,
        maxPixel: Int,
        maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels
    ) throws -> DecodedImage? {
        let source: EncodedImage
        switch payload {
        case .memory(let data): source = .memory(data)
        case .file(let url): source = .file(path: url.path)
        }
        switch mode {
        case .none: return nil
        case .full: return try ImageDecoder.decodeFull(source, maxImagePixels: maxImagePixels)
        case .thumbnail:
            return try ImageDecoder.decodeThumbnail(source, maxPixel: maxPixel, maxImagePixels: maxImagePixels)
        case .stream:
            return try ImageDecoder.decodeStreaming(source, maxPixel: maxPixel, maxImagePixels: maxImagePixels)
        default: throw TrialError.unknownRenderer(mode.rawValue, valid: RenderMode.builtIns.map(\.rawValue))
        }
    }

    /// Loads the decoder's code and tables, so the first real decode measures only the image.
    package static func warmUp(mode: RenderMode, image: URL? = nil) throws {
        guard mode != .none else { return }
        for payload in try warmUpPayloads(image: image) {
            _ = try render(payload, mode: mode, maxPixel: 16)?.checksum()
        }
    }

    /// What a renderer warms up on: `image` (a tiny file of the measured image's format, when it
    /// is not a JPEG) from memory and from the file, then a tiny JPEG made here, from memory.
    package static func warmUpPayloads(image: URL?) throws -> [Payload] {
        let measuredFormat: [Payload] = try image.map { [.memory(try Data(contentsOf: $0)), .file($0)] } ?? []
        let tiny = try JPEGEncoder.encodeRGB(width: 64, height: 48, quality: 90, progressive: false) { y, row in
            for x in 0..<64 * 3 { row[x] = UInt8(truncatingIfNeeded: x &* 7 &+ y &* 13) }
        }
        return measuredFormat + [.memory(tiny)]
    }
}
