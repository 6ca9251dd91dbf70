import CStreamJPEG
import Foundation

/// Decodes a JPEG of any scan structure straight to a thumbnail with our own decoder
/// (CStreamJPEG): every scan's cursor advances one MCU row at a time, so a progressive or
/// multi-scan file costs one row of coefficients, not the image's. Files are read with pread in
/// small chunks; bodies in memory are read in place, never copied whole.
package enum StreamJPEGDecoder {
    /// RGBA at `maxPixel` on the long side (aspect kept, never upscaled), area-averaged after
    /// the IDCT's own M/8 scaling. A file whose blocks x scans pass the work budget, which follows
    /// `maxImagePixels` (see CStreamJPEG.h), is refused (`ImagingError.overBudget`) before decoding.
    package static func decodeThumbnail(
        _ source: EncodedImage,
        maxPixel: Int,
        maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels
    ) throws -> DecodedImage {
        try withDecoder(source, maxImagePixels: maxImagePixels) { decoder in
            var width: Int32 = 0
            var height: Int32 = 0
            var numerator: Int32 = 0
            let side = Int32(clamping: max(1, maxPixel))
            try check(decoder, streamjpeg_set_output(decoder, side, &width, &height, &numerator))
            let image = try DecodedImage(width: Int(width), height: Int(height))
            try check(decoder, streamjpeg_render_rgba(decoder, image.pixels, image.byteCount))
            return image
        }
    }

    /// The DCT scale numerator (1...8) a thumbnail of `maxPixel` decodes at: from the header only.
    package static func thumbnailScale(_ source: EncodedImage, maxPixel: Int) throws -> Int {
        try withDecoder(source) { decoder in
            var width: Int32 = 0
            var height: Int32 = 0
            var numerator: Int32 = 0
            let side = Int32(clamping: max(1, maxPixel))
            try check(decoder, streamjpeg_set_output(decoder, side, &width, &height, &numerator))
            return Int(numerator)
        }
    }

    /// Every component's quantized coefficients, 64 a block in natural order, the component's
    /// blocks row by row: what libjpeg's `jpeg_read_coefficients` gives. For tests (it holds the image's).
    package static func coefficients(_ source: EncodedImage) throws -> [[Int16]] {
        try withDecoder(source) { decoder in
            let count = Int(streamjpeg_components(decoder))
            var wide = [Int](repeating: 0, count: count)
            var all = [[Int16]](repeating: [], count: count)
            for component in 0..<count {
                var width: Int32 = 0
                var height: Int32 = 0
                try check(decoder, streamjpeg_component_blocks(decoder, Int32(component), &width, &height))
                wide[component] = Int(width)
                all[component].reserveCapacity(Int(width) * Int(height) * 64)
            }
            var row = [Int16](repeating: 0, count: (wide.max() ?? 0) * 64 * 4)
            for _ in 0..<Int(streamjpeg_mcu_rows(decoder)) {
                try check(decoder, streamjpeg_decode_row(decoder))
                for component in 0..<count {
                    var rows: Int32 = 0
                    try row.withUnsafeMutableBufferPointer { buffer in
                        try check(
                            decoder,
                            streamjpeg_row_coefficients(
                                decoder,
                                Int32(component),
                                buffer.baseAddress,
                                buffer.count,
                                &rows
                            )
                        )
                    }
                    all[component] += row[0..<Int(rows) * wide[component] * 64]
                }
            }
            return all
        }
    }

    /// The image at the DCT scale `numerator`/8 (1...8) before the resampler, ceil(width x numerator / 8)
    /// x ceil(height x numerator / 8): RGB, 3 bytes a pixel, or (`rgb` false) the file's own components
    /// (Y, YCbCr...), a byte each. For tests (it holds that image).
    package static func scaledPixels(_ source: EncodedImage, numerator: Int, rgb: Bool = true) throws -> [UInt8] {
        try withDecoder(source) { decoder in
            let width = (Int(streamjpeg_width(decoder)) * numerator + 7) / 8
            let height = (Int(streamjpeg_height(decoder)) * numerator + 7) / 8
            var pixels = [UInt8](repeating: 0, count: width * height * (rgb ? 3 : Int(streamjpeg_components(decoder))))
            try pixels.withUnsafeMutableBytes { buffer in
                try check(
                    decoder,
                    streamjpeg_render_scaled(
                        decoder,
                        Int32(numerator),
                        rgb ? 1 : 0,
                        buffer.baseAddress,
                        buffer.count
                    )
                )
            }
            return pixels
        }
    }

    /// Number of scans the first pass found (at most `maxScans`).
    package static func scanCount(_ source: EncodedImage) throws -> Int {
        try withDecoder(source) { Int(streamjpeg_scans($0)) }
    }

    /// The work the first pass counted: blocks x scans, the render counted as one more scan.
    package static func work(_ source: EncodedImage) throws -> Int {
        try withDecoder(source) { Int(streamjpeg_work($0)) }
    }

    /// The most work (blocks x scans) a decode under the pixel budget `maxImagePixels` may do.
    package static func workBudget(maxImagePixels: Int) throws -> Int {
        guard let decoder = streamjpeg_create() else { throw ImagingError.decodeFailed("JPEG: out of memory") }
        defer { streamjpeg_destroy(decoder) }
        try check(decoder, streamjpeg_set_pixel_budget(decoder, UInt64(max(1, maxImagePixels))))
        return Int(streamjpeg_work_budget(decoder))
    }

    /// Files with more scans are refused: each scan costs a cursor.
    package static let maxScans = Int(STREAMJPEG_MAX_SCANS)

    // MARK: Private

    /// Opens the decoder (its first pass reads the markers), runs `body`, destroys it. A memory
    /// source is read in place inside `withUnsafeBytes`, which spans the whole decode.
    private static func withDecoder<T>(
        _ source: EncodedImage,
        maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels,
        _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        guard let decoder = streamjpeg_create() else { throw ImagingError.decodeFailed("JPEG: out of memory") }
        defer { streamjpeg_destroy(decoder) }
        try check(decoder, streamjpeg_set_pixel_budget(decoder, UInt64(max(1, maxImagePixels))))
        switch source {
        case .file(let path):
            try check(decoder, streamjpeg_open_file(decoder, path))
            return try body(decoder)
        case .memory(let data):
            return try data.withUnsafeBytes { bytes in
                try check(decoder, streamjpeg_open_memory(decoder, bytes.baseAddress, bytes.count))
                return try body(decoder)
            }
        }
    }

    private static func check(_ decoder: OpaquePointer, _ status: Int32) throws {
        let message = String(cString: streamjpeg_message(decoder))
        switch status {
        case STREAMJPEG_OK: return
        case STREAMJPEG_NOT_JPEG: throw ImagingError.notAJPEG(message)
        case STREAMJPEG_IO: throw ImagingError.io(message)
        case STREAMJPEG_OVER_BUDGET:
            throw ImagingError.overBudget("JPEG (stream decoder): \(message); raise it with \(DecodeBudget.option)")
        default: throw ImagingError.decodeFailed("JPEG (stream decoder): \(message)")
        }
    }
}
