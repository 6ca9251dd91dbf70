import Foundation
import Imaging
import Strategies

/// Stands in for "show the image in an image view": decodes the payload, whatever its format
/// (found from the bytes), with that format's C library. Bodies in memory are decoded from
/// memory; files are decoded from the file.
public enum Renderer {
    /// Returns the decoded image, which the caller keeps alive while measuring (it is "on screen").
    /// Images whose decode would allocate more than `maxImagePixels` RGBA pixels are refused
    /// (ImagingError.overBudget) before anything is allocated.
    public static func render(_ payload: Payload, mode: RenderMode, maxPixel: Int,
                              maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels) throws -> DecodedImage? {
        let source: JPEGSource
        switch payload {
        case .memory(let data): source = .memory(data)
        case .file(let url): source = .file(path: url.path)
        }
        switch mode {
        case .none: return nil
        case .full: return try ImageDecoder.decodeFull(source, maxImagePixels: maxImagePixels)
        case .thumbnail: return try ImageDecoder.decodeThumbnail(source, maxPixel: maxPixel, maxImagePixels: maxImagePixels)
        }
    }

    /// Loads libjpeg's code and tables with a tiny image, so the first real decode measures only the image;
    /// with `image` (a tiny file of another format) that format's decoder too, from memory and from the file.
    public static func warmUp(mode: RenderMode, image: URL? = nil) throws {
        guard mode != .none else { return }
        if let image {
            _ = try render(.memory(Data(contentsOf: image)), mode: mode, maxPixel: 16)?.checksum()
            _ = try render(.file(image), mode: mode, maxPixel: 16)?.checksum()
        }
        let tiny = try JPEGEncoder.encodeRGB(width: 64, height: 48, quality: 90, progressive: false) { y, row in
            for x in 0..<64 * 3 { row[x] = UInt8(truncatingIfNeeded: x &* 7 &+ y &* 13) }
        }
        let image = try render(.memory(tiny), mode: mode, maxPixel: 16)
        _ = image?.checksum()
    }
}
