import CPNGCodec
import Foundation

/// A decoded bitmap as a file a person can open: PPM (RGB), PAM (RGBA) or PNG (RGB), chosen by
/// the path's extension, so `bench render` output can be looked at and compared.
package enum BitmapFile {
    package enum Format: String, CaseIterable, Sendable {
        case ppm, pam, png
    }

    /// The format a path's extension names, nil for any other.
    package static func format(ofPath path: String) -> Format? {
        Format(rawValue: URL(fileURLWithPath: path).pathExtension.lowercased())
    }

    package static func encode(_ image: DecodedImage, as format: Format) throws -> Data {
        let pixels = image.pixels.assumingMemoryBound(to: UInt8.self)
        switch format {
        case .ppm:
            var data = Data("P6\n\(image.width) \(image.height)\n255\n".utf8)
            data.reserveCapacity(data.count + image.width * image.height * 3)
            for index in 0..<image.width * image.height {
                data.append(pixels + index * 4, count: 3)
            }
            return data
        case .pam:
            var data = Data(
                ("P7\nWIDTH \(image.width)\nHEIGHT \(image.height)\nDEPTH 4\nMAXVAL 255\n"
                    + "TUPLTYPE RGB_ALPHA\nENDHDR\n").utf8
            )
            data.append(pixels, count: image.byteCount)
            return data
        case .png:
            return try png(image)
        }
    }

    /// Reads back a PPM or PAM this type wrote (RGBA, alpha 255 for PPM): for round trips.
    package static func decode(_ data: Data) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        let bytes = [UInt8](data)
        var at = 0
        func line() -> String {
            let start = at
            while at < bytes.count && bytes[at] != 0x0A { at += 1 }
            defer { at += 1 }
            return String(decoding: bytes[start..<min(at, bytes.count)], as: UTF8.self)
        }
        let magic = line()
        var width = 0
        var height = 0
        var depth = 3
        if magic == "P6" {
            let size = line().split(separator: " ").compactMap { Int($0) }
            guard size.count == 2, line() == "255" else { throw ImagingError.decodeFailed("PPM: bad header") }
            (width, height) = (size[0], size[1])
        } else if magic == "P7" {
            while true {
                let field = line().split(separator: " ")
                guard let key = field.first, at < bytes.count else {
                    throw ImagingError.decodeFailed("PAM: bad header")
                }
                if key == "ENDHDR" { break }
                let value = field.count > 1 ? Int(field[1]) ?? 0 : 0
                if key == "WIDTH" { width = value }
                if key == "HEIGHT" { height = value }
                if key == "DEPTH" { depth = value }
            }
        } else {
            throw ImagingError.decodeFailed("neither PPM nor PAM")
        }
        guard width > 0, height > 0, depth == 3 || depth == 4,
            bytes.count - at == width * height * depth
        else {
            throw ImagingError.decodeFailed("PPM/PAM: size mismatch")
        }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for index in 0..<width * height {
            for c in 0..<depth { rgba[index * 4 + c] = bytes[at + index * depth + c] }
        }
        return (width, height, rgba)
    }

    private static func png(_ image: DecodedImage) throws -> Data {
        let pixels = image.pixels.assumingMemoryBound(to: UInt8.self)
        return try PNGEncoding.encode(width: image.width, height: image.height, alpha: false, interlaced: false) {
            y,
            row in
            for x in 0..<image.width {
                for c in 0..<3 { row[x * 3 + c] = pixels[(y * image.width + x) * 4 + c] }
            }
        }
    }
}
