import Foundation
import ImageMemoryBench
import Imaging

/// What many apps do to show a thumbnail: decode the whole image, draw it into a bitmap of the
/// view's size, and keep only that. The full bitmap is freed before `render` returns, so the
/// image on screen is small, but the peak holds both. Beside the built-in `thumbnail` (which
/// never allocates the full bitmap) it shows what the shortcut costs.
struct DecodeThenResizeRenderer: ImageRenderer {
    static let name = "decode-then-resize"
    static let summary =
        "decode the whole image (the harness's decoders), box-resample it to --max-pixel, keep only the small bitmap"
    /// What it keeps on screen is the bitmap at --max-pixel: the full one it decodes first is excess.
    static let floor = RenderFloor.scaledBitmap

    let limits: RenderLimits

    init(limits: RenderLimits) {
        self.limits = limits
    }

    func render(_ payload: Payload) async throws -> RenderedImage {
        let source: EncodedImage =
            switch payload {
            case .memory(let data): .memory(data)
            case .file(let url): .file(path: url.path)
            }
        let full = try ImageDecoder.decodeFull(source, maxImagePixels: limits.maxImagePixels)
        let small = SmallBitmap(resampling: full, maxPixel: limits.maxPixel)
        return RenderedImage(width: small.width, height: small.height, storage: small)
    }
}

/// An RGBA bitmap whose longer side is at most `maxPixel`, each pixel the mean of the block of
/// the source it covers (a box filter, as a drawing context's low-quality interpolation).
struct SmallBitmap: Sendable {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    init(resampling image: DecodedImage, maxPixel: Int) {
        let longer = max(image.width, image.height)
        let scale = min(1, Double(maxPixel) / Double(longer))
        width = max(1, Int(Double(image.width) * scale))
        height = max(1, Int(Double(image.height) * scale))
        let (sourceWidth, sourceHeight, source) = (image.width, image.height, image.pixels)
        let (width, height) = (width, height)
        pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
            for y in 0..<height {
                let rows =
                    (y * sourceHeight / height)..<max(y * sourceHeight / height + 1, (y + 1) * sourceHeight / height)
                for x in 0..<width {
                    let columns =
                        (x * sourceWidth / width)..<max(x * sourceWidth / width + 1, (x + 1) * sourceWidth / width)
                    var sums = (0, 0, 0, 0)
                    for row in rows {
                        for column in columns {
                            let offset = (row * sourceWidth + column) * 4
                            sums.0 += Int(source.load(fromByteOffset: offset, as: UInt8.self))
                            sums.1 += Int(source.load(fromByteOffset: offset + 1, as: UInt8.self))
                            sums.2 += Int(source.load(fromByteOffset: offset + 2, as: UInt8.self))
                            sums.3 += Int(source.load(fromByteOffset: offset + 3, as: UInt8.self))
                        }
                    }
                    let area = rows.count * columns.count
                    let out = (y * width + x) * 4
                    buffer[out] = UInt8(sums.0 / area)
                    buffer[out + 1] = UInt8(sums.1 / area)
                    buffer[out + 2] = UInt8(sums.2 / area)
                    buffer[out + 3] = UInt8(sums.3 / area)
                }
            }
            count = width * height * 4
        }
        withExtendedLifetime(image) {}
    }
}
