import CPNGCodec
import Foundation

/// PNG bytes from RGB rows, through CPNGCodec's encoder (level 6): the fixtures' and `bench render`'s.
enum PNGEncoding {
    /// `fill(y, row)` writes row `y`'s `width` x 3 bytes into `row`; an Adam7 file (`interlaced`)
    /// asks for every row once per pass, and libpng picks that pass's pixels from it. With `alpha`
    /// the encoder writes RGBA, opaque.
    static func encode(
        width: Int,
        height: Int,
        alpha: Bool,
        interlaced: Bool,
        fill: (Int, UnsafeMutablePointer<UInt8>) -> Void
    ) throws -> Data {
        guard let encoder = pngcodec_encoder_create(Int32(width), Int32(height), alpha ? 1 : 0, interlaced ? 1 : 0, 6)
        else {
            throw ImagingError.encodeFailed("PNG: out of memory creating an encoder")
        }
        defer { pngcodec_encoder_destroy(encoder) }
        func check(_ status: Int32) throws {
            guard status != PNGCODEC_OK else { return }
            throw ImagingError.encodeFailed("PNG: \(String(cString: pngcodec_encoder_message(encoder)))")
        }
        try check(pngcodec_encoder_status(encoder))
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 3)
        defer { row.deallocate() }
        for _ in 0..<pngcodec_encoder_passes(encoder) {
            for y in 0..<height {
                fill(y, row)
                try check(pngcodec_encoder_write_rgb_row(encoder, row, Int32(y)))
            }
        }
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        try check(pngcodec_encoder_finish(encoder, &bytes, &size))
        guard let bytes else { throw ImagingError.encodeFailed("PNG: encoder returned no buffer") }
        return Data(bytesNoCopy: bytes, count: size, deallocator: .free)
    }
}
