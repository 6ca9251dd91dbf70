import Foundation

/// The decoders whose codec decodes from one buffer at the size it is asked for (libwebp,
/// libheif): a full decode and a thumbnail are one call at two sizes, refused first when the
/// output and what the codec keeps would pass the budget.
protocol OneBufferDecoder {
    /// Bytes the codec itself keeps that grow with the image, besides our output.
    static func internalBytes(_ info: ImageInfo) -> Int
    /// A new bitmap of `size`, the budget already checked.
    static func decode(
        _ source: EncodedImage,
        info: ImageInfo,
        to size: (width: Int, height: Int)
    ) throws
        -> DecodedImage
}

extension OneBufferDecoder {
    static func decodeFull(_ source: EncodedImage, info: ImageInfo, maxImagePixels: Int) throws -> DecodedImage {
        try checkedDecode(
            source,
            info: info,
            to: (info.width, info.height),
            how: "decoding it at full size",
            maxImagePixels: maxImagePixels
        )
    }

    static func decodeThumbnail(
        _ source: EncodedImage,
        info: ImageInfo,
        maxPixel: Int,
        maxImagePixels: Int
    ) throws -> DecodedImage {
        let size = ThumbnailSize.of(width: info.width, height: info.height, maxPixel: maxPixel)
        return try checkedDecode(
            source,
            info: info,
            to: size,
            how: "a \(size.width)x\(size.height) thumbnail",
            maxImagePixels: maxImagePixels
        )
    }

    private static func checkedDecode(
        _ source: EncodedImage,
        info: ImageInfo,
        to size: (width: Int, height: Int),
        how: String,
        maxImagePixels: Int
    ) throws -> DecodedImage {
        let bytes = Saturating.sum(Saturating.product(size.width, size.height, 4), internalBytes(info))
        try ImageDecoder.checkBudget(info, allocates: bytes, how: how, maxImagePixels: maxImagePixels)
        return try decode(source, info: info, to: size)
    }
}
