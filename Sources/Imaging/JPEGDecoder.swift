import CJPEGCodec
import Foundation

/// How much a decode may allocate, in pixels of RGBA output (4 bytes each), checked from the
/// header before anything is allocated. A 125-byte JPEG can claim 60000x60000 pixels: its
/// decode would take 14.4 GB, so a hostile or broken image must be refused, not measured.
public enum DecodeBudget {
    /// Pillow's limit: it warns above MAX_IMAGE_PIXELS (89,478,485, a 256 MiB 3-byte image)
    /// and refuses at twice that. We refuse at the same 178,956,970 pixels: 716 MB of RGBA,
    /// seven times the article's 6000x4000 photo (96 MB), and still fits a small machine.
    public static let defaultMaxImagePixels = 178_956_970
    /// The option that raises it, named in the error.
    package static let option = "--max-image-pixels"
    package static let validRange = 1...4_000_000_000
}

/// Decodes JPEGs with libjpeg-turbo, to RGBA at full size or DCT-scaled.
public enum JPEGDecoder {
    /// Reads only the header.
    package static func imageSize(of source: EncodedImage) throws -> (width: Int, height: Int) {
        try withDecoder(source) { decoder in
            (Int(jpegcodec_decoder_image_width(decoder)), Int(jpegcodec_decoder_image_height(decoder)))
        }
    }

    /// Full-size RGBA: one malloc of width*height*4, decoded row by row straight into it.
    /// Refused (`ImagingError.overBudget`) before allocating when the bitmap, plus the
    /// coefficient buffer of a progressive JPEG, is more than `maxImagePixels` * 4 bytes.
    public static func decodeFull(
        _ source: EncodedImage,
        maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels
    ) throws -> DecodedImage {
        try withDecoder(source) { decoder in
            try decode(decoder, numerator: 8, maxImagePixels: maxImagePixels)
        }
    }

    /// The smallest scale N/8 (N in 1...8) whose long side is at least `maxPixel`,
    /// or 8/8 if even full size is smaller. Sizes round up, as libjpeg's do.
    /// 6000x4000 with maxPixel 1024 gives 2/8, decoded as 1500x1000.
    package static func thumbnailScale(width: Int, height: Int, maxPixel: Int) -> (numerator: Int, denominator: Int) {
        let longSide = max(width, height)
        for numerator in 1...8 where (longSide * numerator + 7) / 8 >= maxPixel {
            return (numerator, 8)
        }
        return (8, 8)
    }

    /// A thumbnail from libjpeg's DCT scaling: the IDCT itself outputs the smaller
    /// size, so the full-size bitmap is never allocated.
    /// A huge image is still thumbnailed when what the decode really allocates fits the budget:
    /// a baseline JPEG needs only the small output (and strips), a progressive one also keeps
    /// every coefficient of the full image (2 bytes each) whatever the scale.
    public static func decodeThumbnail(
        _ source: EncodedImage,
        maxPixel: Int,
        maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels
    ) throws -> DecodedImage {
        try withDecoder(source) { decoder in
            let scale = thumbnailScale(
                width: Int(jpegcodec_decoder_image_width(decoder)),
                height: Int(jpegcodec_decoder_image_height(decoder)),
                maxPixel: maxPixel
            )
            return try decode(decoder, numerator: scale.numerator, maxImagePixels: maxImagePixels)
        }
    }

    /// Bytes a decode at `numerator`/8 of an image would allocate: the RGBA output, plus the
    /// whole-image coefficient buffer when libjpeg keeps one. From the header only.
    package static func allocationEstimate(
        of source: EncodedImage,
        numerator: Int = 8
    ) throws
        -> (outputWidth: Int, outputHeight: Int, outputBytes: Int, coefficientBytes: Int)
    {
        try withDecoder(source) { decoder in try estimate(decoder, numerator: numerator) }
    }

    // MARK: Private

    /// Opens a decoder on the source and reads the header, runs `body`, destroys it.
    /// Memory sources are read in place: the pointer from `withUnsafeBytes` goes to
    /// jpeg_mem_src, and the whole decode happens inside that closure. Never copy the
    /// payload here: the harness measures copies.
    private static func withDecoder<T>(_ source: EncodedImage, _ body: (OpaquePointer) throws -> T) throws -> T {
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

    private static func estimate(
        _ decoder: OpaquePointer,
        numerator: Int
    ) throws
        -> (outputWidth: Int, outputHeight: Int, outputBytes: Int, coefficientBytes: Int)
    {
        var width: Int32 = 0
        var height: Int32 = 0
        try check(jpegcodec_decoder_set_scale(decoder, Int32(numerator), &width, &height), decoder)
        let coefficients =
            jpegcodec_decoder_buffers_coefficients(decoder) != 0
            ? Int(clamping: jpegcodec_decoder_coefficient_bytes(decoder)) : 0
        return (Int(width), Int(height), Int(width) * Int(height) * 4, coefficients)
    }

    private static func decode(_ decoder: OpaquePointer, numerator: Int, maxImagePixels: Int) throws -> DecodedImage {
        let plan = try estimate(decoder, numerator: numerator)
        let budgetBytes = maxImagePixels.multipliedReportingOverflow(by: 4).overflow ? Int.max : maxImagePixels * 4
        let (total, overflow) = plan.outputBytes.addingReportingOverflow(plan.coefficientBytes)
        if overflow || total > budgetBytes {
            let width = Int(jpegcodec_decoder_image_width(decoder))
            let height = Int(jpegcodec_decoder_image_height(decoder))
            let how =
                numerator == 8
                ? "decoding it at full size"
                : "decoding it at \(numerator)/8 (\(plan.outputWidth)x\(plan.outputHeight))"
            var parts = ["\(megabytes(plan.outputBytes)) RGBA output"]
            if plan.coefficientBytes > 0 {
                parts.append("\(megabytes(plan.coefficientBytes)) of DCT coefficients (progressive or multi-scan JPEG)")
            }
            throw ImagingError.overBudget(
                "image is \(width)x\(height) (\(width * height) pixels); \(how) would allocate \(megabytes(total)) "
                    + "(\(parts.joined(separator: " + "))), over the budget of \(maxImagePixels) pixels "
                    + "(\(megabytes(budgetBytes)) at 4 bytes a pixel); raise it with \(DecodeBudget.option)"
            )
        }
        let image = try DecodedImage(width: plan.outputWidth, height: plan.outputHeight)
        try check(jpegcodec_decoder_read_rgba(decoder, image.pixels, image.byteCount), decoder)
        return image
    }

    private static func megabytes(_ bytes: Int) -> String {
        bytes >= 1_000_000_000
            ? String(format: "%.1f GB", Double(bytes) / 1e9) : String(format: "%.1f MB", Double(bytes) / 1e6)
    }

    private static func check(_ status: Int32, _ decoder: OpaquePointer) throws {
        let message = status == JPEGCODEC_OK ? "" : String(cString: jpegcodec_decoder_message(decoder))
        if let error = ImagingError.decoding(status: status, message: message) { throw error }
    }
}
