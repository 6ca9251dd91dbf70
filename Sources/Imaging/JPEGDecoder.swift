import CJPEGCodec
import Foundation

/// Where the compressed bytes are: already in memory, or in a file that is streamed.
public enum JPEGSource: Sendable {
    case memory(Data)
    case file(path: String)
}

/// Decodes JPEGs with libjpeg-turbo, to RGBA at full size or DCT-scaled.
public enum JPEGDecoder {
    /// Reads only the header.
    public static func imageSize(of source: JPEGSource) throws -> (width: Int, height: Int) {
        try withDecoder(source) { decoder in
            (Int(jpegcodec_decoder_image_width(decoder)), Int(jpegcodec_decoder_image_height(decoder)))
        }
    }

    /// Full-size RGBA: one malloc of width*height*4, decoded row by row straight into it.
    public static func decodeFull(_ source: JPEGSource) throws -> DecodedImage {
        try withDecoder(source) { decoder in
            try decode(decoder, numerator: 8)
        }
    }

    /// The smallest scale N/8 (N in 1...8) whose long side is at least `maxPixel`,
    /// or 8/8 if even full size is smaller. Sizes round up, as libjpeg's do.
    /// 6000x4000 with maxPixel 1024 gives 2/8, decoded as 1500x1000.
    public static func thumbnailScale(width: Int, height: Int, maxPixel: Int) -> (numerator: Int, denominator: Int) {
        let longSide = max(width, height)
        for numerator in 1...8 where (longSide * numerator + 7) / 8 >= maxPixel {
            return (numerator, 8)
        }
        return (8, 8)
    }

    /// A thumbnail from libjpeg's DCT scaling: the IDCT itself outputs the smaller
    /// size, so the full-size bitmap is never allocated.
    public static func decodeThumbnail(_ source: JPEGSource, maxPixel: Int) throws -> DecodedImage {
        try withDecoder(source) { decoder in
            let scale = thumbnailScale(width: Int(jpegcodec_decoder_image_width(decoder)),
                                       height: Int(jpegcodec_decoder_image_height(decoder)),
                                       maxPixel: maxPixel)
            return try decode(decoder, numerator: scale.numerator)
        }
    }

    // MARK: Private

    /// Opens a decoder on the source and reads the header, runs `body`, destroys it.
    /// Memory sources are read in place: the pointer from `withUnsafeBytes` goes to
    /// jpeg_mem_src, and the whole decode happens inside that closure. Never copy the
    /// payload here: the harness measures copies.
    private static func withDecoder<T>(_ source: JPEGSource, _ body: (OpaquePointer) throws -> T) throws -> T {
        guard let decoder = jpegcodec_decoder_create() else {
            throw ImagingError.decodeFailed("out of memory creating a decoder")
        }
        defer { jpegcodec_decoder_destroy(decoder) }
        switch source {
        case .memory(let data):
            return try data.withUnsafeBytes { bytes in
                try check(jpegcodec_decoder_open_memory(decoder, bytes.baseAddress, bytes.count), decoder)
                return try body(decoder)
            }
        case .file(let path):
            try check(jpegcodec_decoder_open_file(decoder, path), decoder)
            return try body(decoder)
        }
    }

    private static func decode(_ decoder: OpaquePointer, numerator: Int) throws -> DecodedImage {
        var width: Int32 = 0, height: Int32 = 0
        try check(jpegcodec_decoder_set_scale(decoder, Int32(numerator), &width, &height), decoder)
        let image = try DecodedImage(width: Int(width), height: Int(height))
        try check(jpegcodec_decoder_read_rgba(decoder, image.pixels, image.byteCount), decoder)
        return image
    }

    private static func check(_ status: Int32, _ decoder: OpaquePointer) throws {
        let message = status == JPEGCODEC_OK ? "" : String(cString: jpegcodec_decoder_message(decoder))
        if let error = ImagingError.decoding(status: status, message: message) { throw error }
    }
}
