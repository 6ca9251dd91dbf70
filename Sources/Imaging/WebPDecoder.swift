import CWebPCodec
import Foundation

/// WebP through libwebp's advanced API, straight into our bitmap. libwebp decodes from one
/// buffer, so a file is read into memory whole first (the payload's size, counted).
/// Lossy (VP8) works a macroblock row at a time; the thumbnail comes from libwebp's own
/// rescaler (use_scaling), fed row by row, so only the small output is image-sized. Lossless
/// (VP8L) keeps the whole image as 32-bit ARGB (4 bytes a pixel) whatever the output size
/// (src/dec/vp8l_dec.c AllocateInternalBuffers32b), so its thumbnail costs as much as a full bitmap.
enum WebPDecoder {
    static func decodeFull(_ source: JPEGSource, info: ImageInfo, maxImagePixels: Int) throws -> DecodedImage {
        try decode(source, info: info, to: (info.width, info.height), how: "decoding it at full size", maxImagePixels: maxImagePixels)
    }

    static func decodeThumbnail(_ source: JPEGSource, info: ImageInfo, maxPixel: Int, maxImagePixels: Int) throws -> DecodedImage {
        let size = ThumbnailSize.of(width: info.width, height: info.height, maxPixel: maxPixel)
        return try decode(source, info: info, to: size, how: "a \(size.width)x\(size.height) thumbnail", maxImagePixels: maxImagePixels)
    }

    /// Bytes libwebp itself keeps that grow with the image, besides our output.
    static func internalBytes(_ info: ImageInfo) -> Int {
        if info.lossless == true { return Saturating.product(info.pixelCount, 4) }
        return info.hasAlpha ? info.pixelCount : 0  // an ALPH plane, 1 byte a pixel
    }

    private static func decode(_ source: JPEGSource, info: ImageInfo, to size: (width: Int, height: Int), how: String,
                               maxImagePixels: Int) throws -> DecodedImage {
        let bytes = Saturating.sum(Saturating.product(size.width, size.height, 4), internalBytes(info))
        try ImageDecoder.checkBudget(info, allocates: bytes, how: how, maxImagePixels: maxImagePixels)
        return try ImageDecoder.decodeWhole(source, to: size, format: .webp, webpcodec_decode_rgba)
    }
}
