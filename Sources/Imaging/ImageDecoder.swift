import Foundation

/// Decodes any supported image, the format found from its bytes: to full-size 8-bit RGBA,
/// or to a thumbnail by the cheapest path its format allows (ThumbnailSize says how big).
public enum ImageDecoder {
    /// The header of the image at `source`. A file is read front to back through a few KiB, the
    /// segments and chunks before the header skipped by their length (HEIF aside: see ImageInspector).
    package static func inspect(_ source: EncodedImage) throws -> ImageInfo {
        switch source {
        case .memory(let data):
            return try ImageInspector.inspect(data)
        case .file(let path):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ImagingError.io("cannot open \(path): \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            return try ImageInspector.inspect(fileDescriptor: descriptor, name: path)
        }
    }

    /// Full-size 8-bit RGBA, kept by the caller as an image view keeps its bitmap.
    public static func decodeFull(
        _ source: EncodedImage,
        maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels
    ) throws -> DecodedImage {
        let info = try inspect(source)
        switch info.format {
        case .jpeg: return try JPEGDecoder.decodeFull(source, maxImagePixels: maxImagePixels)
        case .png: return try PNGDecoder.decodeFull(source, info: info, maxImagePixels: maxImagePixels)
        case .webp: return try WebPDecoder.decodeFull(source, info: info, maxImagePixels: maxImagePixels)
        case .heic, .avif: return try HEIFDecoder.decodeFull(source, info: info, maxImagePixels: maxImagePixels)
        }
    }

    /// A thumbnail of `ThumbnailSize.of(info, maxPixel:)`, never going through a full-size
    /// RGBA bitmap where the format allows it (see each decoder for what it must hold).
    public static func decodeThumbnail(
        _ source: EncodedImage,
        maxPixel: Int,
        maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels
    ) throws -> DecodedImage {
        let info = try inspect(source)
        switch info.format {
        case .jpeg: return try JPEGDecoder.decodeThumbnail(source, maxPixel: maxPixel, maxImagePixels: maxImagePixels)
        case .png:
            return try PNGDecoder.decodeThumbnail(
                source,
                info: info,
                maxPixel: maxPixel,
                maxImagePixels: maxImagePixels
            )
        case .webp:
            return try WebPDecoder.decodeThumbnail(
                source,
                info: info,
                maxPixel: maxPixel,
                maxImagePixels: maxImagePixels
            )
        case .heic, .avif:
            return try HEIFDecoder.decodeThumbnail(
                source,
                info: info,
                maxPixel: maxPixel,
                maxImagePixels: maxImagePixels
            )
        }
    }

    /// Straight to `maxPixel` on the long side while streaming (the `stream` renderer): the encoded
    /// input read from the file or the body as needed, rows area-averaged into the output as they
    /// are decoded. A JPEG of any scan structure goes through StreamJPEGDecoder (the output and one
    /// row of coefficients); PNG through libpng's rows, Adam7 through one inflate state a pass; WebP
    /// through libwebp's incremental decoder and scaling; HEIC and AVIF from the decoder's planes.
    /// Each decoder says what it holds besides the output.
    public static func decodeStreaming(
        _ source: EncodedImage,
        maxPixel: Int,
        maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels
    ) throws -> DecodedImage {
        let info = try inspect(source)
        let output = Saturating.product(min(info.width, maxPixel), min(info.height, maxPixel))
        guard output <= maxImagePixels else {
            throw ImagingError.overBudget(
                "a \(info.width)x\(info.height) \(info.format.displayName)'s output at"
                    + " --max-pixel \(maxPixel) is over \(DecodeBudget.option) \(maxImagePixels)"
            )
        }
        switch info.format {
        case .jpeg:
            return try StreamJPEGDecoder.decodeThumbnail(source, maxPixel: maxPixel, maxImagePixels: maxImagePixels)
        case .png: return try PNGDecoder.decodeStreaming(source, info: info, maxPixel: maxPixel)
        case .webp:
            return try WebPDecoder.decodeStreaming(
                source,
                info: info,
                maxPixel: maxPixel,
                maxImagePixels: maxImagePixels
            )
        case .heic, .avif:
            return try HEIFDecoder.decodeStreaming(
                source,
                info: info,
                maxPixel: maxPixel,
                maxImagePixels: maxImagePixels
            )
        }
    }

    /// The shims of libwebp and libheif: bytes, count, destination, its size, output width and
    /// height, message buffer and its size; returns 0 on success.
    typealias OneCallDecoder = (
        UnsafeRawPointer?, Int, UnsafeMutableRawPointer?, Int, Int32, Int32,
        UnsafeMutablePointer<CChar>?, Int
    ) -> Int32

    /// For codecs that decode from one buffer (libwebp, libheif): a file is read whole first (by
    /// design: HEIF's boxes and lossless WebP's transforms need all of it), then
    /// `decoder` writes `size` RGBA pixels into a new bitmap.
    static func decodeWhole(
        _ source: EncodedImage,
        to size: (width: Int, height: Int),
        format: ImageFormat,
        _ decoder: OneCallDecoder
    ) throws -> DecodedImage {
        let data: Data
        switch source {
        case .memory(let bytes): data = bytes
        case .file(let path): data = try readWhole(path)
        }
        let image = try DecodedImage(width: size.width, height: size.height)
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBytes { bytes in
            message.withUnsafeMutableBufferPointer {
                decoder(
                    bytes.baseAddress,
                    bytes.count,
                    image.pixels,
                    image.byteCount,
                    Int32(size.width),
                    Int32(size.height),
                    $0.baseAddress,
                    $0.count
                )
            }
        }
        guard status == 0 else {
            throw ImagingError.decodeFailed("\(format.displayName): \(String(messageBuffer: message))")
        }
        return image
    }

    /// The whole file, for the decoders that take one buffer.
    static func readWhole(_ path: String) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImagingError.io("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw ImagingError.io("cannot read \(path): \(error)")
        }
    }

    /// Refuses, before allocating, a decode whose buffers would pass the budget (bytes at 4 a pixel).
    static func checkBudget(_ info: ImageInfo, allocates bytes: Int, how: String, maxImagePixels: Int) throws {
        let budget = maxImagePixels.multipliedReportingOverflow(by: 4)
        let budgetBytes = budget.overflow ? Int.max : budget.partialValue
        guard bytes > budgetBytes else { return }
        throw ImagingError.overBudget(
            "\(info.summary) (\(info.pixelCount) pixels); \(how) would allocate \(String(format: "%.1f MB", Double(bytes) / 1e6)), "
                + "over the budget of \(maxImagePixels) pixels (\(String(format: "%.1f MB", Double(budgetBytes) / 1e6)) at 4 bytes a pixel); "
                + "raise it with \(DecodeBudget.option)"
        )
    }
}

/// The thumbnail's size for every format: libjpeg's rule (the smallest N/8 whose long side
/// is at least maxPixel, sizes rounded up), so the same picture gives the same thumbnail
/// whatever its encoding (6000x4000 at 1024: 1500x1000).
package enum ThumbnailSize {
    package static func of(width: Int, height: Int, maxPixel: Int) -> (width: Int, height: Int) {
        let scale = JPEGDecoder.thumbnailScale(width: width, height: height, maxPixel: maxPixel)
        return ((width * scale.numerator + 7) / 8, (height * scale.numerator + 7) / 8)
    }
}
