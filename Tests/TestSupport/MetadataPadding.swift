import Foundation

/// Real encoders' output with metadata put before the image data, as photo exports carry it: XMP
/// in APP1 segments, text chunks, an ICC profile. Every length and CRC is the format's own.
public enum MetadataPadding {
    /// `jpeg` with APP1 segments of `bytes` in all (65,533 a segment, the most one holds) right
    /// after its SOI, before any other segment.
    public static func jpeg(_ jpeg: Data, app1Bytes bytes: Int) -> Data {
        var padded = Data(jpeg.prefix(2))
        var left = bytes
        var index = 0
        while left > 0 {
            let payload = min(left, 65533)
            padded += [0xFF, 0xE1] + be16(payload + 2) + filler(payload, index)
            left -= payload
            index += 1
        }
        return padded + jpeg.dropFirst(2)
    }

    /// `png` with tEXt chunks of `bytes` in all (64 KiB of text each) right after IHDR.
    public static func png(_ png: Data, textBytes bytes: Int) -> Data {
        let ihdrEnd = 8 + 8 + 13 + 4
        var padded = Data(png.prefix(ihdrEnd))
        var left = bytes
        var index = 0
        while left > 0 {
            let payload = min(left, 65536)
            padded += chunk("tEXt", Array("Comment\0".utf8) + filler(payload - 8, index))
            left -= payload
            index += 1
        }
        return padded + png.dropFirst(ihdrEnd)
    }

    /// A PNG chunk: length, type, data, CRC-32 of type and data.
    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    /// A simple lossy WebP (RIFF, VP8) of `width` x `height` turned into the extended format: VP8X
    /// with the ICC flag, an ICCP chunk of `iccBytes` before the image chunk and EXIF after it.
    public static func webp(_ webp: Data, width: Int, height: Int, iccBytes: Int) -> Data {
        let image = [UInt8](webp.dropFirst(12))
        let vp8x = Array("VP8X".utf8) + le32(10) + [0x20 | 0x08, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        let icc = Array("ICCP".utf8) + le32(iccBytes) + filler(iccBytes, 0) + (iccBytes & 1 == 1 ? [0] : [])
        let exif = Array("EXIF".utf8) + le32(4096) + filler(4096, 1)
        let body = Array("WEBP".utf8) + vp8x + icc + image + exif
        return Data(Array("RIFF".utf8) + le32(body.count) + body)
    }

    /// Printable text that varies (no 0xFF byte, so nothing in it looks like a marker).
    static func filler(_ count: Int, _ seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(0x20 + ($0 &* 7 &+ seed &* 13) % 95) }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func be16(_ value: Int) -> [UInt8] { [8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func le32(_ value: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func le24(_ value: Int) -> [UInt8] { [0, 8, 16].map { UInt8(truncatingIfNeeded: value >> $0) } }
}
