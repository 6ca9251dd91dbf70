import CHEIFCodec
import Foundation

/// HEIC and AVIF through libheif 1.15 (libde265 and dav1d/aom behind it). libheif reads from
/// one buffer (a file is read whole first), decodes the whole image to YCbCr planes and converts
/// them to its own RGB image: there is no scaled decode and no per-tile decode in 1.15
/// (heif_image_handle_decode_image_tile came in 1.19), so a thumbnail costs nearly what a full
/// decode does. The shim copies (for a thumbnail, samples) that into our bitmap.
enum HEIFDecoder: OneBufferDecoder {
    /// The stream renderer's HEIC and AVIF at `StreamResampling.outputSize`: the decoder's own
    /// planes (YCbCr at their subsampling, 1.5 bytes a pixel at 4:2:0, 8-bit), converted a row at a
    /// time and area-averaged; no RGB image. libheif 1.15 still holds the planes whole and, while it
    /// copies them out of the codec, the codec's picture too; a file is read by libheif, which keeps
    /// the image item's bytes.
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
        try requireCodec(info)
        let image = try DecodedImage(width: size.width, height: size.height)
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { text in
            switch source {
            case .file(let path):
                return heifcodec_stream_rgba(
                    path,
                    nil,
                    0,
                    image.pixels,
                    image.byteCount,
                    Int32(size.width),
                    Int32(size.height),
                    text.baseAddress,
                    text.count
                )
            case .memory(let data):
                return data.withUnsafeBytes {
                    heifcodec_stream_rgba(
                        nil,
                        $0.baseAddress,
                        $0.count,
                        image.pixels,
                        image.byteCount,
                        Int32(size.width),
                        Int32(size.height),
                        text.baseAddress,
                        text.count
                    )
                }
            }
        }
        guard status == HEIFCODEC_OK else {
            throw ImagingError.decodeFailed("\(info.format.displayName): \(String(messageBuffer: message))")
        }
        return image
    }

    /// What libheif holds at its peak besides our output: its RGB(A) image (3 or 4 bytes a pixel)
    /// and the decoded planes (up to 3 bytes a pixel at 4:4:4, 1.5 at 4:2:0).
    static func internalBytes(_ info: ImageInfo) -> Int { Saturating.product(info.pixelCount, info.hasAlpha ? 7 : 6) }

    static func decode(
        _ source: EncodedImage,
        info: ImageInfo,
        to size: (width: Int, height: Int)
    ) throws
        -> DecodedImage
    {
        try requireCodec(info)
        return try ImageDecoder.decodeWhole(source, to: size, format: info.format, heifcodec_decode_rgba)
    }

    /// Refuses an image when libheif cannot be loaded, or was built without its codec.
    private static func requireCodec(_ info: ImageInfo) throws {
        if let reason = unavailableReason { throw ImagingError.unsupportedImage("\(info.summary): \(reason)") }
        let av1: Int32 = info.format == .avif ? 1 : 0
        guard heifcodec_has_codec(av1, 1) == 0 else { return }
        throw ImagingError.unsupportedImage("\(info.summary): this libheif has no \(av1 == 1 ? "AV1" : "HEVC") decoder")
    }

    /// Why libheif cannot be used here (it is loaded on first use: CHEIFCodec), or nil when it can.
    static var unavailableReason: String? {
        var message = [CChar](repeating: 0, count: 256)
        guard heifcodec_unavailable(&message, message.count) != 0 else { return nil }
        return String(messageBuffer: message)
    }
}
