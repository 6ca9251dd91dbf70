import Foundation

/// Image headers built byte by byte from the formats' specifications, with the sizes a test asks for.
public enum HostileHeaders {
    /// Signature, IHDR (8-bit RGB; its CRC zero) and the length and type of an empty IDAT: 41 bytes.
    public static func png(width: Int, height: Int) -> Data {
        let ihdr = be32(13) + Array("IHDR".utf8) + be32(width) + be32(height) + [8, 2, 0, 0, 0] + [0, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ihdr + be32(0) + Array("IDAT".utf8))
    }

    /// ftyp (heic), then meta > iprp > ipco > ispe with the given size: 72 bytes.
    public static func heic(width: Int, height: Int) -> Data {
        let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        let ispe = box("ispe", [0, 0, 0, 0] + be32(width) + be32(height))
        let meta = box("meta", [0, 0, 0, 0] + box("iprp", box("ipco", ispe)))
        return Data(ftyp + meta)
    }

    /// RIFF/WEBP with a VP8 key frame header of the given 14-bit size.
    public static func webpVP8(width: Int, height: Int) -> Data {
        let frame: [UInt8] =
            [0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A] + le16(width) + le16(height) + [UInt8](repeating: 0, count: 8)
        let chunk = Array("VP8 ".utf8) + le32(frame.count) + frame
        return Data(Array("RIFF".utf8) + le32(4 + chunk.count) + Array("WEBP".utf8) + chunk)
    }

    /// SOI, then a baseline SOF0 of three components (4:2:0) with the given size.
    public static func jpeg(width: Int, height: Int) -> Data {
        let sof: [UInt8] =
            [0xFF, 0xC0, 0x00, 17, 8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        return Data([0xFF, 0xD8] + sof + [0xFF, 0xD9])
    }

    /// An ISO media box: size, type, body.
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(8 + body.count) + Array(type.utf8) + body }
    static func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func be16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
    static func le16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }
    static func le32(_ value: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) } }
}
