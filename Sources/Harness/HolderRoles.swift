import BenchCore
import Strategies

/// The one table that names what each holder of the heap peak is for, from its frames: a
/// strategy's own lines (`FetchStrategy.holderRoles`) first, then these. The first line that
/// matches any frame's function or file name wins; a body store (`.body`) whose block was freed
/// before the window closed was a staging buffer, so it becomes `.bodyBuffer`.
package enum HolderRoles {
    package static let builtIn: [HolderRoleRule] =
        [
            // The test-only copy (BENCH_INJECT_REGRESSION=extra-copy): a copy the caller did not ask for.
            HolderRoleRule(frameContains: "InjectedRegression", role: .bodyBuffer),
            // The scroll scenario's cache of decoded rows.
            HolderRoleRule(frameContains: "ImageCache", role: .cache),
            // The pixels kept for display: every built-in decoder writes into one DecodedImage.
            HolderRoleRule(frameContains: "DecodedImage.init", role: .bitmap),
        ] + decoders.map { HolderRoleRule(frameContains: $0, role: .decoder) } + [
            // FoundationNetworking's transfer buffer: an NSMutableData the body is appended to.
            HolderRoleRule(frameContains: "_TransferState.byAppending", role: .bodyBuffer)
        ] + bodyStores.map { HolderRoleRule(frameContains: $0, role: .body) }

    /// Decoders' code: the libraries, our C shims over them, the stream decoder, and zlib (PNG's window).
    static let decoders = [
        "libjpeg", "libturbojpeg", "libpng", "libwebp", "libsharpyuv", "libheif", "libde265",
        "libdav1d", "libaom", "libz.so", "jpegcodec_", "pngcodec_", "webpcodec_", "heifcodec_",
        "streamjpeg_", "JPEGDecoder", "PNGDecoder", "WebPDecoder", "HEIFDecoder",
        "StreamJPEGDecoder",
    ]

    /// Where a body is stored: Foundation's Data and NSData, NIO's ByteBuffer, the libcurl strategy's buffer.
    static let bodyStores = ["__DataStorage", "_CFDataInit", "NSData.init", "ByteBuffer", "GrowingBuffer"]

    /// The table for a cell of `strategy`: its own lines first.
    package static func rules(forStrategy name: String) -> [HolderRoleRule] {
        (StrategyCatalog.strategy(named: name)?.holderRoles ?? []) + builtIn
    }

    /// The role of a block with these frames (function and file names), freed before the window closed or not.
    package static func role(
        frames: [(name: String, file: String)],
        freedInWindow: Bool,
        rules: [HolderRoleRule]
    ) -> HolderRole {
        let rule = rules.first { rule in
            frames.contains { $0.name.contains(rule.frameContains) || $0.file.contains(rule.frameContains) }
        }
        guard let role = rule?.role else { return .other }
        return role == .body && freedInWindow ? .bodyBuffer : role
    }
}
