import CTestImages
import Foundation

/// JPEGs with the scan structures the stream decoder must follow, made in process by libjpeg
/// (what cjpeg and jpegtran do), and libjpeg's own reading of their coefficients.
public enum JPEGScans {
    /// One scan of a script: the components (indexes), the spectral band Ss...Se, and the
    /// successive approximation bits Ah (the previous scan's Al, 0 for a first pass) and Al.
    public struct Scan: Sendable {
        public var components: [Int]
        public var ss: Int, se: Int, ah: Int, al: Int
        public init(_ components: [Int], _ ss: Int, _ se: Int, _ ah: Int, _ al: Int) {
            self.components = components
            self.ss = ss
            self.se = se
            self.ah = ah
            self.al = al
        }
    }

    /// How the coefficients are written again.
    public enum Structure: Sendable {
        case baseline  // one interleaved sequential scan
        case libjpegProgressive  // jpegtran -progressive (jpeg_simple_progression)
        case script([Scan])  // jpegtran -scans
    }

    /// mozjpeg's default progressive script for YCbCr (jpegtran -scans with its jcparam.c script).
    public static let mozjpegScript: [Scan] = [
        Scan([0, 1, 2], 0, 0, 0, 0), Scan([0], 1, 8, 0, 2), Scan([1], 1, 8, 0, 0), Scan([2], 1, 8, 0, 0),
        Scan([0], 9, 63, 0, 2), Scan([0], 1, 63, 2, 1), Scan([0], 1, 63, 1, 0),
        Scan([1], 9, 63, 0, 0), Scan([2], 9, 63, 0, 0),
    ]

    /// Successive approximation down to bit 0 on every band, DC included, components apart.
    public static let deepRefinementScript: [Scan] = {
        var scans = [Scan([0, 1, 2], 0, 0, 0, 3)]
        for bit in stride(from: 3, to: 0, by: -1) { scans.append(Scan([0, 1, 2], 0, 0, bit, bit - 1)) }
        scans += [Scan([0], 1, 5, 0, 5), Scan([2], 1, 63, 0, 4), Scan([1], 1, 63, 0, 4), Scan([0], 6, 63, 0, 5)]
        for bit in stride(from: 5, to: 0, by: -1) { scans.append(Scan([0], 1, 63, bit, bit - 1)) }
        for component in [1, 2] {
            for bit in stride(from: 4, to: 0, by: -1) { scans.append(Scan([component], 1, 63, bit, bit - 1)) }
        }
        return scans
    }()

    /// Sequential, one scan a component (libjpeg buffers these whole too).
    public static let sequentialPerComponent: [Scan] = [
        Scan([0], 0, 63, 0, 0), Scan([1], 0, 63, 0, 0), Scan([2], 0, 63, 0, 0),
    ]

    /// libjpeg's default progressive script for YCbCr (jpeg_simple_progression, jcparam.c): 10 scans.
    public static let libjpegScript: [Scan] = [
        Scan([0, 1, 2], 0, 0, 0, 1), Scan([0], 1, 5, 0, 2), Scan([2], 1, 63, 0, 1), Scan([1], 1, 63, 0, 1),
        Scan([0], 6, 63, 0, 2), Scan([0], 1, 63, 2, 1), Scan([0, 1, 2], 0, 0, 1, 0), Scan([2], 1, 63, 1, 0),
        Scan([1], 1, 63, 1, 0), Scan([0], 1, 63, 1, 0),
    ]

    /// A progressive JPEG whose scans hold one byte of entropy data each: the frame, tables and
    /// scan headers that the stream decoder's first pass reads, at any size without encoding it.
    /// Every component is sampled 1x1 and uses quantization table 0 and Huffman tables 0.
    public static func skeleton(width: Int, height: Int, components: Int, scans: [Scan]) -> Data {
        var file = Data([0xFF, 0xD8])
        func segment(_ marker: UInt8, _ payload: [UInt8]) {
            let length = payload.count + 2
            file += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        let size = [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)]
        let frameComponents: [UInt8] = (0..<components).flatMap { [UInt8($0 + 1), 0x11, 0] as [UInt8] }
        segment(0xC2, [8] + size + [UInt8(components)] + frameComponents)
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]  // one 1-bit code: symbol 0
        segment(0xC4, [0x00] + oneCode)
        segment(0xC4, [0x10] + oneCode)
        for scan in scans {
            let selectors: [UInt8] = scan.components.flatMap { [UInt8($0 + 1), 0x00] as [UInt8] }
            let band: [UInt8] = [UInt8(scan.ss), UInt8(scan.se), UInt8(scan.ah << 4 | scan.al)]
            segment(0xDA, [UInt8(scan.components.count)] + selectors + band)
            file.append(0)
        }
        file += [0xFF, 0xD9]
        return file
    }

    /// A baseline JPEG of `rgba` (width x height x 4 bytes): grayscale, or YCbCr with luma sampled h x v.
    public static func encode(
        rgba: UnsafeRawPointer,
        width: Int,
        height: Int,
        gray: Bool = false,
        luma: (h: Int, v: Int) = (2, 2),
        quality: Int = 90
    ) throws -> Data {
        try encoded { out, size, message, count in
            testimages_jpeg_rgba(
                rgba.assumingMemoryBound(to: UInt8.self),
                Int32(width),
                Int32(height),
                gray ? 1 : 0,
                Int32(luma.h),
                Int32(luma.v),
                Int32(quality),
                out,
                size,
                message,
                count
            )
        }
    }

    /// The same coefficients in another scan structure, a restart marker every `restartInterval` MCUs.
    public static func transcode(_ jpeg: Data, to structure: Structure, restartInterval: Int = 0) throws -> Data {
        var script: [Int32] = []
        let count: Int
        switch structure {
        case .baseline: count = 0
        case .libjpegProgressive: count = -1
        case .script(let scans):
            count = scans.count
            for scan in scans {
                let components = scan.components + [Int](repeating: 0, count: 4 - scan.components.count)
                script += ([scan.components.count] + components + [scan.ss, scan.se, scan.ah, scan.al]).map(Int32.init)
            }
        }
        return try jpeg.withUnsafeBytes { bytes in
            try encoded { out, size, message, messageCount in
                testimages_jpeg_transcode(
                    bytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    bytes.count,
                    script,
                    Int32(count),
                    Int32(restartInterval),
                    out,
                    size,
                    message,
                    messageCount
                )
            }
        }
    }

    /// libjpeg's `jpeg_read_coefficients` for one component: its blocks row by row, 64 each.
    public static func libjpegCoefficients(_ jpeg: Data, component: Int) throws -> [Int16] {
        var out: UnsafeMutablePointer<Int16>?
        var wide: Int32 = 0
        var high: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = jpeg.withUnsafeBytes { bytes in
            message.withUnsafeMutableBufferPointer {
                testimages_jpeg_coefficients(
                    bytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    bytes.count,
                    Int32(component),
                    &out,
                    &wide,
                    &high,
                    $0.baseAddress!,
                    $0.count
                )
            }
        }
        guard status == 0, let out else { throw TestImages.EncodeFailure(description: text(message)) }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(wide) * Int(high) * 64))
    }

    /// libjpeg's decode at the DCT scale `numerator`/8: RGB (3 bytes a pixel) or (`rgb` false) the
    /// file's own components, chroma upsampled by interpolation (`fancy`, its default) or by repeating
    /// samples (djpeg -nosmooth).
    public static func libjpegScaled(
        _ jpeg: Data,
        numerator: Int,
        fancy: Bool,
        rgb: Bool = true
    ) throws
        -> (width: Int, height: Int, samples: [UInt8])
    {
        var out: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var height: Int32 = 0
        var components: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = jpeg.withUnsafeBytes { bytes in
            message.withUnsafeMutableBufferPointer {
                testimages_jpeg_decode_scaled(
                    bytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    bytes.count,
                    Int32(numerator),
                    fancy ? 1 : 0,
                    rgb ? 1 : 0,
                    &out,
                    &width,
                    &height,
                    &components,
                    $0.baseAddress!,
                    $0.count
                )
            }
        }
        guard status == 0, let out else { throw TestImages.EncodeFailure(description: text(message)) }
        defer { free(out) }
        let count = Int(width) * Int(height) * Int(components)
        return (Int(width), Int(height), Array(UnsafeBufferPointer(start: out, count: count)))
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private typealias Encode = (
        UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>,
        UnsafeMutablePointer<CChar>, Int
    ) -> Int32

    private static func encoded(_ encode: Encode) throws -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { encode(&out, &size, $0.baseAddress!, $0.count) }
        guard status == 0, let out else { throw TestImages.EncodeFailure(description: text(message)) }
        defer { free(out) }
        return Data(bytes: out, count: size)
    }
}
