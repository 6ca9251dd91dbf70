import Foundation

// Placeholders until the libpng, libwebp and libheif shims land: the dispatch is in place,
// these formats are detected and reported as decode_error rows naming what was found.
enum PNGDecoder {
    static func decodeFull(_ source: JPEGSource, info: ImageInfo, maxImagePixels: Int) throws -> DecodedImage {
        throw ImagingError.unsupportedImage("\(info.summary): no PNG decoder in this build yet")
    }
    static func decodeThumbnail(_ source: JPEGSource, info: ImageInfo, maxPixel: Int, maxImagePixels: Int) throws -> DecodedImage {
        throw ImagingError.unsupportedImage("\(info.summary): no PNG decoder in this build yet")
    }
}

enum WebPDecoder {
    static func decodeFull(_ source: JPEGSource, info: ImageInfo, maxImagePixels: Int) throws -> DecodedImage {
        throw ImagingError.unsupportedImage("\(info.summary): no WebP decoder in this build yet")
    }
    static func decodeThumbnail(_ source: JPEGSource, info: ImageInfo, maxPixel: Int, maxImagePixels: Int) throws -> DecodedImage {
        throw ImagingError.unsupportedImage("\(info.summary): no WebP decoder in this build yet")
    }
}

enum HEIFDecoder {
    static func decodeFull(_ source: JPEGSource, info: ImageInfo, maxImagePixels: Int) throws -> DecodedImage {
        throw ImagingError.unsupportedImage("\(info.summary): no HEIF decoder in this build yet")
    }
    static func decodeThumbnail(_ source: JPEGSource, info: ImageInfo, maxPixel: Int, maxImagePixels: Int) throws -> DecodedImage {
        throw ImagingError.unsupportedImage("\(info.summary): no HEIF decoder in this build yet")
    }
}
