import CJPEGCodec
import Foundation

/// Encodes RGB rows to a baseline or progressive JPEG in memory.
package enum JPEGEncoder {
    /// `rows(y, row)` fills row `y` (width*3 bytes of RGB) and is called for y in
    /// 0..<height, in order. Rows are handed to libjpeg in strips of 16, so the whole
    /// RGB image never exists. (A progressive encode still keeps every DCT coefficient,
    /// about width*height*2 bytes with 4:2:0, inside libjpeg until it finishes.)
    package static func encodeRGB(
        width: Int,
        height: Int,
        quality: Int,
        progressive: Bool,
        fullChroma: Bool = false,
        rows: (Int, UnsafeMutablePointer<UInt8>) -> Void
    ) throws -> Data {
        guard (1...65500).contains(width), (1...65500).contains(height), (1...100).contains(quality) else {
            throw ImagingError.encodeFailed(
                "width/height must be in 1...65500 and quality in 1...100, got \(width)x\(height) q\(quality)"
            )
        }
        guard
            let encoder = jpegcodec_encoder_create_sampled(
                Int32(width),
                Int32(height),
                Int32(quality),
                progressive ? 1 : 0,
                fullChroma ? 1 : 0
            )
        else {
            throw ImagingError.encodeFailed("out of memory creating an encoder")
        }
        defer { jpegcodec_encoder_destroy(encoder) }
        try check(jpegcodec_encoder_status(encoder), encoder)

        let stripHeight = 16
        let stride = width * 3
        let strip = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * stripHeight)
        strip.initialize(repeating: 0, count: stride * stripHeight)  // a lazy `rows` still encodes deterministically
        defer { strip.deallocate() }

        var y = 0
        while y < height {
            let count = min(stripHeight, height - y)
            for i in 0..<count { rows(y + i, strip + i * stride) }
            try check(jpegcodec_encoder_write_rows(encoder, strip, Int32(count), stride), encoder)
            y += count
        }

        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        try check(jpegcodec_encoder_finish(encoder, &bytes, &size), encoder)
        guard let bytes else { throw ImagingError.encodeFailed("encoder returned no buffer") }
        // Adopt libjpeg's malloc'd output instead of copying it.
        return Data(bytesNoCopy: bytes, count: size, deallocator: .free)
    }

    private static func check(_ status: Int32, _ encoder: OpaquePointer) throws {
        guard status != JPEGCODEC_OK else { return }
        throw ImagingError.encodeFailed(String(cString: jpegcodec_encoder_message(encoder)))
    }
}
