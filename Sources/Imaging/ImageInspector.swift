import Foundation

/// Reads an image's format and header from its bytes, never from a file name: a server's
/// name or Content-Type may lie, the bytes cannot. No pixel is decoded; only the few
/// bytes the header needs are read, so inspecting a 13 MB payload costs nothing.
package enum ImageInspector {
    /// Throws `ImagingError.unsupportedImage` naming what the first bytes look like when the
    /// format is none of ours, and `.decodeFailed` naming the format when its header is broken.
    package static func inspect(_ bytes: Data) throws -> ImageInfo {
        try inspect(HeaderReader(MemoryByteSource(bytes)))
    }

    /// The header of the file open at `descriptor` (read with pread: its offset is left alone), holding
    /// a few KiB whatever lies before the header; `name` is for errors.
    package static func inspect(fileDescriptor descriptor: Int32, name: String) throws -> ImageInfo {
        try inspect(HeaderReader(FileByteSource(descriptor: descriptor, name: name)))
    }

    /// The header read from any source (parts of a resource fetched with `Range` requests).
    package static func inspect(source: any HeaderByteSource) throws -> ImageInfo {
        try inspect(HeaderReader(source))
    }

    /// The header of a forward-only stream (a request body, to budget it before holding it): `pull`
    /// fills the buffer it gets and returns the count, 0 at the end. Reads stop at the header; what
    /// comes before it is read and discarded, a window at a time.
    package static func inspect(
        stream pull: @escaping (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws
        -> ImageInfo
    {
        try inspect(HeaderReader(StreamByteSource(pull)))
    }

    /// JPEG, PNG and WebP headers are read front to back, skipping what lies before them. HEIF reads
    /// the whole input by design: its 'meta' box may sit anywhere, after megabytes of 'mdat', and
    /// libheif decodes from one buffer anyway (so a prefix first, all of it only when needed).
    static func inspect(_ input: HeaderReader) throws -> ImageInfo {
        let head = ByteReader(try input.peek(HeaderReader.windowBytes))
        switch sniff(head) {
        case .jpeg: return try checkedSize(JPEGHeader.inspect(input))
        case .png: return try checkedSize(PNGHeader.inspect(input))
        case .webp: return try checkedSize(WebPHeader.inspect(input))
        case .heic, .avif:
            if let whole = input.wholeInMemory { return try checkedSize(HEIFHeader.inspect(ByteReader(whole))) }
            let prefix = try input.prefix(typicalHeaderBytes)
            do {
                return try checkedSize(HEIFHeader.inspect(ByteReader(prefix)))
            } catch ImagingError.decodeFailed(let message) where prefix.count == typicalHeaderBytes {
                _ = message  // the header may continue past the prefix: read all of it
                return try checkedSize(HEIFHeader.inspect(ByteReader(prefix + input.prefix(Int.max))))
            }
        case nil: throw ImagingError.unsupportedImage(describeUnknown(head, count: input.sizeText))
        }
    }

    /// A size is the file's word: a side of 0 is no image, and one over `ImageInfo.maxSide` is
    /// more than the codecs take. Refused here, every ImageInfo from a file has a pixel count
    /// that fits an Int.
    static func checkedSize(_ info: ImageInfo) throws -> ImageInfo {
        guard let problem = sizeProblem(width: info.width, height: info.height) else { return info }
        throw ImagingError.decodeFailed("\(info.format.displayName): the header gives a size of \(problem)")
    }

    /// "0x100 pixels; each side must be 1 to 2147483647", or nil for a size we decode.
    static func sizeProblem(width: Int, height: Int) -> String? {
        let sides = 1...ImageInfo.maxSide
        guard !sides.contains(width) || !sides.contains(height) else { return nil }
        return "\(width)x\(height) pixels; each side must be 1 to \(ImageInfo.maxSide)"
    }

    /// The format from the signature alone (magic bytes), nil when it is none of ours.
    package static func sniff(_ bytes: Data) -> ImageFormat? { sniff(ByteReader(bytes)) }

    /// The prefix of a HEIF file read first: its header is usually there; when not, all of it is read.
    package static let typicalHeaderBytes = 64 * 1024

    static func sniff(_ reader: ByteReader) -> ImageFormat? {
        if reader.matches([0xFF, 0xD8, 0xFF], at: 0) { return .jpeg }
        if reader.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) { return .png }
        if reader.ascii(at: 0, count: 4) == "RIFF", reader.ascii(at: 8, count: 4) == "WEBP" { return .webp }
        if reader.ascii(at: 4, count: 4) == "ftyp" { return HEIFHeader.brandFormat(reader) }
        return nil
    }

    /// "12 bytes starting 47 49 46 38 39 61 ... (GIF)": what was found, for the error.
    static func describeUnknown(_ reader: ByteReader, count: String? = nil) -> String {
        guard reader.count > 0 else { return "no bytes (empty body); expected one of \(ImageFormat.supportedList)" }
        let head = (0..<min(8, reader.count)).compactMap { reader.u8($0) }
            .map { String(format: "%02x", $0) }.joined(separator: " ")
        var found = "\(count ?? "\(reader.count) bytes") starting \(head)"
        if let known = knownOther(reader) { found += " (\(known))" }
        if reader.ascii(at: 4, count: 4) == "ftyp", let brand = reader.ascii(at: 8, count: 4) {
            found += " (ISO media, brand '\(brand)')"
        }
        return "\(found); expected one of \(ImageFormat.supportedList)"
    }

    /// Formats we recognise but do not decode, to name them in the error.
    private static func knownOther(_ reader: ByteReader) -> String? {
        if reader.ascii(at: 0, count: 4) == "GIF8" { return "GIF" }
        if reader.ascii(at: 0, count: 2) == "BM" { return "BMP" }
        if reader.matches([0x49, 0x49, 0x2A, 0x00], at: 0) || reader.matches([0x4D, 0x4D, 0x00, 0x2A], at: 0) {
            return "TIFF"
        }
        if reader.matches([0xFF, 0x0A], at: 0) || reader.matches([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20], at: 0) {
            return "JPEG XL"
        }
        if reader.ascii(at: 0, count: 4) == "RIFF" { return "RIFF, not WebP" }
        if let text = reader.ascii(at: 0, count: min(5, reader.count)), text.lowercased().hasPrefix("<") {
            return "text, HTML or XML?"
        }
        return nil
    }
}

/// Bounds-checked big- and little-endian reads over `Data` (whose indices need not start at 0).
struct ByteReader {
    let data: Data
    init(_ data: Data) { self.data = data }
    var count: Int { data.count }

    func u8(_ offset: Int) -> UInt8? {
        guard offset >= 0, offset < data.count else { return nil }
        return data[data.startIndex + offset]
    }
    func be16(_ offset: Int) -> Int? {
        guard let a = u8(offset), let b = u8(offset + 1) else { return nil }
        return Int(a) << 8 | Int(b)
    }
    func be32(_ offset: Int) -> Int? {
        guard let high = be16(offset), let low = be16(offset + 2) else { return nil }
        return high << 16 | low
    }
    func le16(_ offset: Int) -> Int? {
        guard let a = u8(offset), let b = u8(offset + 1) else { return nil }
        return Int(b) << 8 | Int(a)
    }
    func le24(_ offset: Int) -> Int? {
        guard let low = le16(offset), let high = u8(offset + 2) else { return nil }
        return Int(high) << 16 | low
    }
    func le32(_ offset: Int) -> Int? {
        guard let low = le16(offset), let high = le16(offset + 2) else { return nil }
        return high << 16 | low
    }
    func matches(_ signature: [UInt8], at offset: Int) -> Bool {
        signature.indices.allSatisfy { u8(offset + $0) == signature[$0] }
    }
    /// Printable ASCII only, else nil.
    func ascii(at offset: Int, count: Int) -> String? {
        var scalars = ""
        for index in 0..<count {
            guard let byte = u8(offset + index), (0x20...0x7E).contains(byte) else { return nil }
            scalars.append(Character(Unicode.Scalar(byte)))
        }
        return scalars
    }
}
