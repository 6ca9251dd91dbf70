/// The header parsers behind ImageInspector, one per container. Each reads only what
/// ImageInfo needs and names the format and the broken part when it cannot.

package enum JPEGHeader {
    /// Walks the marker segments to the first SOF (start of frame), skipping each by its length
    /// (APPn metadata can be megabytes: never held): SOF2/6/10/14 are progressive; the components'
    /// sampling factors give the chroma subsampling. Stray RST0-7 and TEM markers carry no length and
    /// are passed, as libjpeg-turbo passes them.
    static func inspect(_ reader: HeaderReader) throws -> ImageInfo {
        _ = try reader.skip(2)  // SOI, checked by the sniffer
        while true {
            let at = reader.offset
            guard let prefix = try reader.u8() else { throw truncated(reader, "before its frame header (SOF)") }
            guard prefix == 0xFF else {
                throw ImagingError.decodeFailed(
                    "JPEG: expected a marker at byte \(at), found \(String(format: "%02x", prefix))"
                )
            }
            var marker: UInt8 = 0xFF
            while marker == 0xFF {  // fill bytes: each consumes input, so a run ends with the input
                guard let next = try reader.u8() else { throw truncated(reader, "before its frame header (SOF)") }
                marker = next
            }
            if marker == 0xD9 || marker == 0xDA {
                throw ImagingError.decodeFailed("JPEG: no frame header (SOF) before the image data")
            }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { continue }  // RSTn, TEM: no length
            if marker == 0xD8 {
                throw ImagingError.decodeFailed("JPEG: a second start-of-image marker (FFD8) at byte \(at)")
            }
            guard let length = try reader.be16() else { throw truncated(reader, "in a marker segment") }
            guard length >= 2 else {
                throw ImagingError.decodeFailed(
                    "JPEG: marker FF\(String(format: "%02X", marker)) at byte \(at) gives its segment a length of"
                        + " \(length); a length counts its own 2 bytes"
                )
            }
            let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isFrame { return try frame(reader, marker: marker) }
            try reader.skip(length - 2)  // past the end: the next read says truncated
        }
    }

    private static func frame(_ input: HeaderReader, marker: UInt8) throws -> ImageInfo {
        guard let head = try input.bytes(6), let precision = head.u8(0), let height = head.be16(1),
            let width = head.be16(3), let components = head.u8(5)
        else { throw truncated(input, "in its frame header") }
        guard width > 0, height > 0 else {
            throw ImagingError.decodeFailed(
                "JPEG: frame header gives \(width)x\(height) pixels (a height of 0 needs a DNL marker, unsupported)"
            )
        }
        guard components > 0 else { throw ImagingError.decodeFailed("JPEG: frame header lists no components") }
        guard let list = try input.bytes(Int(components) * 3) else { throw truncated(input, "in its component list") }
        var factors: [(h: Int, v: Int)] = []
        for index in 0..<Int(components) {
            let packed = list.u8(index * 3 + 1) ?? 0
            factors.append((Int(packed >> 4), Int(packed & 0x0F)))
        }
        let progressive = [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
        return ImageInfo(
            format: .jpeg,
            width: width,
            height: height,
            progressive: progressive,
            chromaSubsampling: subsampling(factors),
            bitDepth: Int(precision),
            hasAlpha: false,
            arithmeticCoding: marker >= 0xC9
        )  // SOF9...SOF15 (DAC 0xCC is not a frame)
    }

    package static func subsampling(_ factors: [(h: Int, v: Int)]) -> String {
        if factors.count == 1 { return "gray" }
        let luma = factors[0]
        let chromaSame = factors.dropFirst().allSatisfy { $0.h == 1 && $0.v == 1 }
        if factors.count == 3, chromaSame {
            switch (luma.h, luma.v) {
            case (1, 1): return "4:4:4"
            case (2, 1): return "4:2:2"
            case (2, 2): return "4:2:0"
            case (1, 2): return "4:4:0"
            case (4, 1): return "4:1:1"
            default: break
            }
        }
        return factors.map { "\($0.h)x\($0.v)" }.joined(separator: ",")
    }

    private static func truncated(_ reader: HeaderReader, _ where_: String) -> ImagingError {
        .decodeFailed("JPEG: truncated \(where_) (\(reader.sizeText))")
    }
}

enum PNGHeader {
    /// IHDR must come first; a tRNS chunk before IDAT also means alpha. The chunks between are
    /// skipped by their length (text chunks can be megabytes).
    static func inspect(_ input: HeaderReader) throws -> ImageInfo {
        guard let head = try input.bytes(29), head.ascii(at: 12, count: 4) == "IHDR", let width = head.be32(16),
            let height = head.be32(20),
            let depth = head.u8(24), let colorType = head.u8(25), let interlace = head.u8(28)
        else {
            throw ImagingError.decodeFailed("PNG: truncated or missing IHDR chunk (\(input.sizeText))")
        }
        guard width > 0, height > 0, [0, 2, 3, 4, 6].contains(colorType), interlace <= 1 else {
            throw ImagingError.decodeFailed(
                "PNG: invalid IHDR (\(width)x\(height), colour type \(colorType), interlace \(interlace))"
            )
        }
        var hasAlpha = colorType == 4 || colorType == 6
        var next = head.be32(8).map { 8 + 12 + $0 } ?? 33  // the chunk after IHDR
        while !hasAlpha, try input.skip(next - input.offset), let chunk = try input.bytes(8),
            let length = chunk.be32(0), let type = chunk.ascii(at: 4, count: 4), type != "IDAT"
        {
            if type == "tRNS" { hasAlpha = true }
            next = input.offset + length + 4  // the data and the CRC
        }
        return ImageInfo(
            format: .png,
            width: width,
            height: height,
            progressive: interlace == 1,
            bitDepth: Int(depth),
            hasAlpha: hasAlpha,
            palette: colorType == 3
        )
    }
}

enum WebPHeader {
    /// The first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended: canvas size and
    /// flags, followed by the image chunk that says lossy or lossless). Other chunks (ICCP, EXIF,
    /// XMP, unknown) are skipped by their size.
    static func inspect(_ input: HeaderReader) throws -> ImageInfo {
        var canvas: (width: Int, height: Int, alpha: Bool)?
        var next = 12
        while try input.skip(next - input.offset), let chunk = try input.bytes(8),
            let fourCC = chunk.ascii(at: 0, count: 4), let size = chunk.le32(4)
        {
            next = input.offset + size + (size & 1)
            switch fourCC {
            case "VP8X":
                guard size >= 10 else {
                    throw ImagingError.decodeFailed("WebP: a VP8X chunk of \(size) bytes, where it has 10")
                }
                guard let body = try input.bytes(10), let flags = body.u8(0), let w = body.le24(4),
                    let h = body.le24(7)
                else { break }  // the input ends: no image chunk
                if flags & 0x02 != 0 {
                    throw ImagingError.unsupportedImage(
                        "an animated WebP (\(w + 1)x\(h + 1)); only still images are decoded"
                    )
                }
                canvas = (w + 1, h + 1, flags & 0x10 != 0)
            case "VP8 ":
                guard let body = try input.bytes(10), body.matches([0x9D, 0x01, 0x2A], at: 3),
                    let w = body.le16(6), let h = body.le16(8)
                else {
                    throw ImagingError.decodeFailed("WebP: VP8 chunk without a key frame header")
                }
                return info(
                    width: canvas?.width ?? (w & 0x3FFF),
                    height: canvas?.height ?? (h & 0x3FFF),
                    alpha: canvas?.alpha ?? false,
                    lossless: false
                )
            case "VP8L":
                guard let body = try input.bytes(5), body.u8(0) == 0x2F, let bits = body.le32(1) else {
                    throw ImagingError.decodeFailed("WebP: VP8L chunk without its signature")
                }
                let w = (bits & 0x3FFF) + 1
                let h = ((bits >> 14) & 0x3FFF) + 1
                let alpha = (bits >> 28) & 1 == 1
                return info(
                    width: canvas?.width ?? w,
                    height: canvas?.height ?? h,
                    alpha: canvas?.alpha ?? alpha,
                    lossless: true
                )
            default:
                break
            }
        }
        throw ImagingError.decodeFailed("WebP: no VP8 or VP8L image chunk in \(input.sizeText)")
    }

    private static func info(width: Int, height: Int, alpha: Bool, lossless: Bool) -> ImageInfo {
        ImageInfo(format: .webp, width: width, height: height, bitDepth: 8, hasAlpha: alpha, lossless: lossless)
    }
}

enum HEIFHeader {
    /// ISO base media file: the ftyp brands say HEIC or AVIF ('mif1' alone says neither).
    static func brandFormat(_ reader: ByteReader) -> ImageFormat? {
        guard let size = reader.be32(0), size >= 16 else { return nil }
        var brands: [String] = []
        if let major = reader.ascii(at: 8, count: 4) { brands.append(major) }
        var offset = 16
        while offset + 4 <= min(size, reader.count) {
            if let brand = reader.ascii(at: offset, count: 4) { brands.append(brand) }
            offset += 4
        }
        if brands.contains(where: { ["avif", "avis"].contains($0) }) { return .avif }
        if brands.contains(where: { ["heic", "heix", "heim", "heis", "hevc", "hevx"].contains($0) }) { return .heic }
        return nil
    }

    /// The primary item's properties ('pitm', then 'ipma' into 'ipco'): size from 'ispe', cropped
    /// by 'clap' and turned by 'irot', bit depth from 'pixi'; alpha from an 'auxC' alpha property
    /// anywhere. Encoders code whole blocks: libheif with x265 stores a 301x203 picture as a
    /// 302x204 coded item and the 301x203 primary, so the largest 'ispe' is not the size.
    static func inspect(_ reader: ByteReader) throws -> ImageInfo {
        guard let format = brandFormat(reader) else {
            throw ImagingError.unsupportedImage(ImageInspector.describeUnknown(reader))
        }
        var properties: [(type: String, offset: Int)] = []
        var primary: Int?
        var associations: [Int: [Int]] = [:]  // item ID -> 1-based property indices
        var alpha = false
        func walk(_ start: Int, _ end: Int, inPropertyContainer: Bool) {
            var offset = start
            while offset + 8 <= end, let size32 = reader.be32(offset), let type = reader.ascii(at: offset + 4, count: 4)
            {
                let size = size32 == 0 ? end - offset : size32
                guard size >= 8, offset + size <= end else { return }
                if inPropertyContainer { properties.append((type, offset)) }
                switch type {
                case "meta": walk(offset + 12, offset + size, inPropertyContainer: false)  // a full box
                case "iprp": walk(offset + 8, offset + size, inPropertyContainer: false)
                case "ipco": walk(offset + 8, offset + size, inPropertyContainer: true)
                case "pitm":
                    primary = reader.u8(offset + 8) == 0 ? reader.be16(offset + 12) : reader.be32(offset + 12)
                case "ipma":
                    associations.merge(itemProperties(reader, at: offset)) { first, _ in first }
                case "auxC":
                    if let urn = reader.ascii(at: offset + 12, count: max(0, size - 13)),
                        urn.contains("alpha") || urn.hasSuffix("auxid:1")
                    {
                        alpha = true
                    }
                default: break
                }
                offset += size
            }
        }
        walk(0, reader.count, inPropertyContainer: false)
        let own = primary.flatMap { associations[$0] }?.compactMap { index in
            properties.indices.contains(index - 1) ? properties[index - 1] : nil
        }
        let candidates = own ?? properties  // no pitm/ipma: the whole container
        var size: (width: Int, height: Int)?
        for property in candidates where property.type == "ispe" {
            guard let w = reader.be32(property.offset + 12), let h = reader.be32(property.offset + 16) else { continue }
            if let problem = ImageInspector.sizeProblem(width: w, height: h) {
                throw ImagingError.decodeFailed("\(format.displayName): 'ispe' property gives \(problem)")
            }
            if w * h > (size.map { $0.width * $0.height } ?? 0) { size = (w, h) }  // sides checked: no overflow
        }
        guard var size, size.width > 0, size.height > 0 else {
            throw ImagingError.decodeFailed(
                "\(format.displayName): no image size ('ispe' property) in the first \(reader.count) bytes"
            )
        }
        var depth = 8
        for property in candidates {
            let o = property.offset
            switch property.type {
            case "clap":
                if let wn = reader.be32(o + 8), let wd = reader.be32(o + 12), let hn = reader.be32(o + 16),
                    let hd = reader.be32(o + 20),
                    wd > 0, hd > 0, (1...size.width).contains(wn / wd), (1...size.height).contains(hn / hd)
                {
                    size = (wn / wd, hn / hd)
                }
            case "irot":
                if let angle = reader.u8(o + 8), angle & 1 == 1 { size = (size.height, size.width) }
            case "pixi":
                if let channels = reader.u8(o + 12), channels > 0, let bits = reader.u8(o + 13) { depth = Int(bits) }
            default: break
            }
        }
        return ImageInfo(format: format, width: size.width, height: size.height, bitDepth: depth, hasAlpha: alpha)
    }

    /// 'ipma' (a full box): for each item, its property indices (7 or 15 bits, after an "essential" bit).
    private static func itemProperties(_ reader: ByteReader, at box: Int) -> [Int: [Int]] {
        guard let version = reader.u8(box + 8), let flags = reader.u8(box + 11), let count = reader.be32(box + 12)
        else { return [:] }
        var result: [Int: [Int]] = [:]
        var offset = box + 16
        for _ in 0..<min(count, 10_000) {
            guard let item = version < 1 ? reader.be16(offset) : reader.be32(offset) else { break }
            offset += version < 1 ? 2 : 4
            guard let associationCount = reader.u8(offset) else { break }
            offset += 1
            var indices: [Int] = []
            for _ in 0..<Int(associationCount) {
                if flags & 1 == 1 {
                    guard let value = reader.be16(offset) else { break }
                    indices.append(value & 0x7FFF)
                    offset += 2
                } else {
                    guard let value = reader.u8(offset) else { break }
                    indices.append(Int(value & 0x7F))
                    offset += 1
                }
            }
            result[item] = indices
        }
        return result
    }
}
