import CWebPCodec
import Foundation

/// WebP through libwebp's advanced API, straight into our bitmap. libwebp decodes from one
/// buffer, so a file is read into memory whole first (the payload's size, counted).
/// Lossy (VP8) works a macroblock row at a time; the thumbnail comes from libwebp's own
/// rescaler (use_scaling), fed row by row, so only the small output is image-sized. Lossless
/// (VP8L) keeps the whole image as 32-bit ARGB (4 bytes a pixel) whatever the output size
/// (src/dec/vp8l_dec.c AllocateInternalBuffers32b), so its thumbnail costs as much as a full bitmap.
enum WebPDecoder: OneBufferDecoder {
    /// The stream renderer's WebP at `StreamResampling.outputSize`, by libwebp's own scaling. From a
    /// file, a lossy image without alpha goes through the incremental decoder fed in chunks, which
    /// keeps only what it has not consumed yet (one token partition) and partition 0. Lossless keeps
    /// the whole image as ARGB and, incrementally, the whole input (grown 4 KB at a time, copied at
    /// each step), and alpha keeps the input from the alpha chunk on and a whole alpha plane: those
    /// read the file whole once and decode it in place. A body in memory is always decoded in place.
    static func decodeStreaming(
        _ source: EncodedImage,
        info: ImageInfo,
        maxPixel: Int,
        maxImagePixels: Int
    ) throws -> DecodedImage {
        let size = try StreamResampling.checkedOutputSize(
            info,
            maxPixel: maxPixel,
            maxImagePixels: maxImagePixels,
            internalBytes: internalBytes(info)
        )
        guard case .file(let path) = source, info.lossless == false, !info.hasAlpha else {
            return try ImageDecoder.decodeWhole(source, to: size, format: .webp, webpcodec_decode_rgba)
        }
        let image = try DecodedImage(width: size.width, height: size.height)
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer {
            webpcodec_stream_file_rgba(
                path,
                image.pixels,
                image.byteCount,
                Int32(size.width),
                Int32(size.height),
                $0.baseAddress,
                $0.count
            )
        }
        switch status {
        case WEBPCODEC_OK: return image
        case WEBPCODEC_IO: throw ImagingError.io(String(messageBuffer: message))
        default: throw ImagingError.decodeFailed("WebP: \(String(messageBuffer: message))")
        }
    }

    static func internalBytes(_ info: ImageInfo) -> Int {
        if info.lossless == true { return Saturating.product(info.pixelCount, 4) }
        return info.hasAlpha ? info.pixelCount : 0  // an ALPH plane, 1 byte a pixel
    }

    static func decode(
        _ source: EncodedImage,
        info: ImageInfo,
        to size: (width: Int, height: Int)
    ) throws
        -> DecodedImage
    {
        try ImageDecoder.decodeWhole(source, to: size, format: .webp, webpcodec_decode_rgba)
    }
}
