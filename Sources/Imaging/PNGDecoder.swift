import CPNGCodec
import Foundation

/// PNG through libpng. Full: decoded row by row straight into the bitmap (4 bytes a pixel,
/// plus libpng's two rows). Thumbnail: a streaming box downscale that never holds the full
/// image: a non-interlaced PNG needs one source row and one row of sums; an Adam7 one sends
/// pixels of all seven passes to every output row, so it keeps sums for the whole thumbnail
/// (8 or 16 bytes per thumbnail pixel) instead of rows.
enum PNGDecoder {
    static func decodeFull(_ source: EncodedImage, info: ImageInfo, maxImagePixels: Int) throws -> DecodedImage {
        try ImageDecoder.checkBudget(
            info,
            allocates: Saturating.product(info.pixelCount, 4),
            how: "decoding it at full size",
            maxImagePixels: maxImagePixels
        )
        return try withDecoder(source) { decoder in
            let image = try DecodedImage(
                width: Int(pngcodec_decoder_width(decoder)),
                height: Int(pngcodec_decoder_height(decoder))
            )
            try check(pngcodec_decoder_read_rgba(decoder, image.pixels, image.byteCount), decoder)
            return image
        }
    }

    static func decodeThumbnail(
        _ source: EncodedImage,
        info: ImageInfo,
        maxPixel: Int,
        maxImagePixels: Int
    ) throws -> DecodedImage {
        let size = ThumbnailSize.of(width: info.width, height: info.height, maxPixel: maxPixel)
        if size == (info.width, info.height) {
            return try decodeFull(source, info: info, maxImagePixels: maxImagePixels)
        }
        let working = Int(
            clamping: pngcodec_box_working_bytes(
                Int32(info.width),
                Int32(info.height),
                info.progressive ? 1 : 0,
                Int32(size.width),
                Int32(size.height)
            )
        )
        try ImageDecoder.checkBudget(
            info,
            allocates: Saturating.sum(Saturating.product(size.width, size.height, 4), working),
            how: "a \(size.width)x\(size.height) thumbnail",
            maxImagePixels: maxImagePixels
        )
        return try decode(source, size: size, with: pngcodec_decoder_read_rgba_box)
    }

    /// The stream renderer's PNG: `StreamResampling.outputSize`, area-averaged from rows as they are
    /// decoded (pngcodec_decoder_read_rgba_stream): libpng's rows one at a time, or for Adam7 seven
    /// inflate states, each reading the file from where its pass is, and a row of each pass.
    static func decodeStreaming(_ source: EncodedImage, info: ImageInfo, maxPixel: Int) throws -> DecodedImage {
        let size = StreamResampling.outputSize(width: info.width, height: info.height, maxPixel: maxPixel)
        return try decode(source, size: size, with: pngcodec_decoder_read_rgba_stream)
    }

    /// An RGBA image of `size`, which `read` (one of pngcodec's scaled reads) fills from the decoder.
    private static func decode(
        _ source: EncodedImage,
        size: (width: Int, height: Int),
        with read: (OpaquePointer?, UnsafeMutableRawPointer?, Int, Int32, Int32) -> Int32
    ) throws -> DecodedImage {
        try withDecoder(source) { decoder in
            let image = try DecodedImage(width: size.width, height: size.height)
            try check(read(decoder, image.pixels, image.byteCount, Int32(size.width), Int32(size.height)), decoder)
            return image
        }
    }

    /// Memory is read in place (never copied); a file is streamed through stdio.
    private static func withDecoder<T>(_ source: EncodedImage, _ body: (OpaquePointer) throws -> T) throws -> T {
        guard let decoder = pngcodec_decoder_create() else {
            throw ImagingError.decodeFailed("PNG: out of memory creating a decoder")
        }
        defer { pngcodec_decoder_destroy(decoder) }
        switch source {
        case .memory(let data):
            return try data.withUnsafeBytes { bytes in
                try check(pngcodec_decoder_open_memory(decoder, bytes.baseAddress, bytes.count), decoder)
                return try body(decoder)
            }
        case .file(let path):
            try check(pngcodec_decoder_open_file(decoder, path), decoder)
            return try body(decoder)
        }
    }

    private static func check(_ status: Int32, _ decoder: OpaquePointer) throws {
        guard status != PNGCODEC_OK else { return }
        let message = String(cString: pngcodec_decoder_message(decoder))
        throw status == PNGCODEC_IO ? ImagingError.io(message) : ImagingError.decodeFailed("PNG: \(message)")
    }
}
