import Foundation

/// What the parent reads from an image's first bytes before measuring it: the format from its
/// signature (never the file name), the size and the encoding details that drive decode memory.
/// Headers only; the decoders in the child are what say whether the rest of the file is sound.
public struct ImageFacts: Sendable, Equatable {
    /// "jpeg", "png", "webp", "gif", "heic", "avif".
    public var format: String
    public var width: Int?
    public var height: Int?
    /// JPEG: a multi-scan (progressive) frame; PNG: Adam7 interlacing.
    public var progressive: Bool?
    /// JPEG only: "4:2:0", "4:2:2", "4:4:4", "gray" or the luma sampling factors ("4x1").
    public var chromaSubsampling: String?
    public var bitDepth: Int?
    public var hasAlpha: Bool?

    public init(format: String, width: Int? = nil, height: Int? = nil, progressive: Bool? = nil,
                chromaSubsampling: String? = nil, bitDepth: Int? = nil, hasAlpha: Bool? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.progressive = progressive
        self.chromaSubsampling = chromaSubsampling
        self.bitDepth = bitDepth
        self.hasAlpha = hasAlpha
    }

    public var pixels: Int? {
        guard let width, let height else { return nil }
        return width * height
    }

    /// The chart's colour: format and the detail that changes its decode cost.
    public var encodingLabel: String {
        switch format {
        case "jpeg":
            return "jpeg " + (progressive == true ? "progressive" : "baseline") + (chromaSubsampling.map { " " + $0 } ?? "")
        case "png":
            return "png " + (hasAlpha == true ? "rgba" : "rgb") + (progressive == true ? " interlaced" : "")
        default:
            return format
        }
    }
}

/// Why bytes are not a (recognised) image: names what was found.
public struct NotAnImage: Error, CustomStringConvertible, Equatable {
    public var description: String
}

public enum ImageSniffer {
    /// The facts of `bytes`' image, or why they are not one. A known signature with a header that
    /// cannot be read gives the format without a size (the child's decoder then names the fault).
    public static func inspect(_ bytes: Data) throws(NotAnImage) -> ImageFacts {
        let b = [UInt8](bytes.prefix(1 << 20))
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return jpeg(b) }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(b) }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return webp(b) }
        if b.starts(with: Array("GIF8".utf8)) {
            return ImageFacts(format: "gif", width: b.count >= 10 ? Int(b[6]) | Int(b[7]) << 8 : nil,
                              height: b.count >= 10 ? Int(b[8]) | Int(b[9]) << 8 : nil)
        }
        if b.count >= 12, Array(b[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            if ["avif", "avis"].contains(brand) { return ImageFacts(format: "avif") }
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return ImageFacts(format: "heic") }
        }
        throw NotAnImage(description: "not an image: " + describe(b))
    }

    /// "empty file" or the first bytes, printable ones as text ("starts with '%PDF-1.4'").
    static func describe(_ b: [UInt8]) -> String {
        guard !b.isEmpty else { return "empty file" }
        let head = b.prefix(8)
        if head.allSatisfy({ (0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x09 }) {
            let text = String(decoding: head, as: UTF8.self).replacingOccurrences(of: "\n", with: "\\n")
            return "starts with '\(text)' (expected JPEG, PNG, WebP, GIF, HEIC or AVIF)"
        }
        return "starts with bytes " + head.map { String(format: "%02x", $0) }.joined(separator: " ")
            + " (expected JPEG, PNG, WebP, GIF, HEIC or AVIF)"
    }

    private static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    private static func be32(_ b: [UInt8], _ i: Int) -> Int { be16(b, i) << 16 | be16(b, i + 2) }
    private static func le24(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }

    /// Walks the markers to the first start-of-frame (SOFn): precision, size, components and their sampling.
    static func jpeg(_ b: [UInt8]) -> ImageFacts {
        var facts = ImageFacts(format: "jpeg")
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return facts }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = be16(b, i + 2)
            let sofMarkers: Set<UInt8> = [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF]
            if sofMarkers.contains(marker), i + 10 <= b.count {
                let start = i + 4
                facts.bitDepth = Int(b[start])
                facts.height = be16(b, start + 1)
                facts.width = be16(b, start + 3)
                facts.progressive = [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
                facts.hasAlpha = false
                let components = Int(b[start + 5])
                if start + 6 + 3 * components <= b.count {
                    let sampling = (0..<components).map { (h: Int(b[start + 7 + 3 * $0] >> 4), v: Int(b[start + 7 + 3 * $0] & 0x0F)) }
                    facts.chromaSubsampling = subsampling(sampling)
                }
                return facts
            }
            if marker == 0xDA || marker == 0xD9 { return facts }  // scan data before any frame: unreadable
            i += 2 + length
        }
        return facts
    }

    static func subsampling(_ factors: [(h: Int, v: Int)]) -> String? {
        guard let luma = factors.first else { return nil }
        if factors.count == 1 { return "gray" }
        let chroma = factors.dropFirst()
        guard chroma.allSatisfy({ $0.h == 1 && $0.v == 1 }) else { return factors.map { "\($0.h)x\($0.v)" }.joined(separator: ",") }
        switch (luma.h, luma.v) {
        case (1, 1): return "4:4:4"
        case (2, 1): return "4:2:2"
        case (2, 2): return "4:2:0"
        case (1, 2): return "4:4:0"
        case (4, 1): return "4:1:1"
        default: return "\(luma.h)x\(luma.v)"
        }
    }

    /// IHDR: width, height, bit depth, colour type (4, 6: alpha) and interlace method (1: Adam7).
    static func png(_ b: [UInt8]) -> ImageFacts {
        var facts = ImageFacts(format: "png")
        guard b.count >= 29, Array(b[12..<16]) == Array("IHDR".utf8) else { return facts }
        facts.width = be32(b, 16)
        facts.height = be32(b, 20)
        facts.bitDepth = Int(b[24])
        facts.hasAlpha = b[25] == 4 || b[25] == 6 || containsChunk(b, "tRNS")
        facts.progressive = b[28] == 1
        return facts
    }

    private static func containsChunk(_ b: [UInt8], _ name: String) -> Bool {
        var i = 8
        let wanted = Array(name.utf8)
        while i + 8 <= b.count {
            let type = Array(b[(i + 4)..<(i + 8)])
            if type == wanted { return true }
            if type == Array("IDAT".utf8) { return false }  // tRNS comes before the image data
            i += 12 + be32(b, i)
        }
        return false
    }

    /// The first chunk: VP8X (extended: canvas size, alpha flag), VP8L (lossless) or VP8 (lossy).
    static func webp(_ b: [UInt8]) -> ImageFacts {
        var facts = ImageFacts(format: "webp", bitDepth: 8)
        guard b.count >= 30 else { return facts }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8X":
            facts.hasAlpha = b[20] & 0x10 != 0
            facts.width = le24(b, 24) + 1
            facts.height = le24(b, 27) + 1
        case "VP8L" where b[20] == 0x2F:
            let bits = Int(b[21]) | Int(b[22]) << 8 | Int(b[23]) << 16 | Int(b[24]) << 24
            facts.width = (bits & 0x3FFF) + 1
            facts.height = ((bits >> 14) & 0x3FFF) + 1
            facts.hasAlpha = (bits >> 28) & 1 == 1
        case "VP8 " where b[23] == 0x9D && b[24] == 0x01 && b[25] == 0x2A:
            facts.width = (Int(b[26]) | Int(b[27]) << 8) & 0x3FFF
            facts.height = (Int(b[28]) | Int(b[29]) << 8) & 0x3FFF
            facts.hasAlpha = false
        default:
            break
        }
        return facts
    }
}
