import CHEIFCodec
import CJPEGCodec
import CLibPNG
import CLibWebP
import Foundation

/// The decoding libraries' versions, as each reports itself at run time (libjpeg-turbo, which has
/// no such call in its libjpeg API: the headers bench was built against), for a folder's provenance.
package enum DecoderLibraryVersions {
    package static var all: [String: String] {
        // libjpeg-turbo's LIBJPEG_TURBO_VERSION_NUMBER is major * 1000000 + minor * 1000 + patch.
        let jpeg = Int(jpegcodec_library_version())
        // WebPGetDecoderVersion packs major, minor and revision in 8 bits each.
        let webp = Int(WebPGetDecoderVersion())
        return [
            "libjpeg-turbo": "\(jpeg / 1_000_000).\(jpeg / 1000 % 1000).\(jpeg % 1000)",
            "libpng": png_get_libpng_ver(nil).map { String(cString: $0) } ?? "unknown",
            "libwebp": "\(webp >> 16 & 0xFF).\(webp >> 8 & 0xFF).\(webp & 0xFF)",
            "libheif": heifcodec_version().map { String(cString: $0) } ?? "cannot be loaded",
        ]
    }
}
