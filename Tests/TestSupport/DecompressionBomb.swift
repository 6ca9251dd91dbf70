import Foundation

/// A decompression bomb made at test time, never committed: a grayscale, arithmetic-coded
/// JPEG (SOF9) whose header claims `width` x `height` and whose scan is a few bytes. The
/// arithmetic decoder pads missing data with zeros without a warning, so libjpeg decodes
/// the whole claimed image from ~100 bytes: 60000x60000 is 14.4 GB of RGBA.
package enum DecompressionBomb {
    package static func jpeg(width: Int = 60000, height: Int = 60000) -> Data {
        precondition((1...65535).contains(width) && (1...65535).contains(height))
        var bytes: [UInt8] = [0xFF, 0xD8]  // SOI
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)  // DQT, table 0
        bytes += [
            0xFF, 0xC9, 0x00, 0x0B, 0x08,  // SOF9: arithmetic, 8 bits
            UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
            0x01, 0x01, 0x11, 0x00,
        ]  // 1 component, 1x1, table 0
        bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]  // SOS: all of it
        bytes += [UInt8](repeating: 0, count: 8)  // a few bytes of scan
        bytes += [0xFF, 0xD9]  // EOI
        return Data(bytes)
    }
}
