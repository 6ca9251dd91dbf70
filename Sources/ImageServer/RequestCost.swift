import BenchCore
import Foundation
import Imaging
import Strategies

/// What one image request will hold at most, predicted before its body is held (`--memory-budget`):
/// the larger of its phases, each from the floor rules and the single trials' holders
/// (docs/MEASUREMENT.md, "Predicted cost", has the rules and their calibration):
/// - fetching: a URLSession-style body grows by doubling and is copied once it ends (the next power
///   of two of its size, plus its size: 2.3x a 13.1 MB JPEG); a body collected into a `ByteBuffer`
///   up to twice the next power of two of its size; a body streamed to a file, a few buffers
///   (`streamingBytes`);
/// - rendering: the body when it is in memory (or a stream's buffers), beside the renderer's
///   working bitmap (the whole image for `full`; the DCT-scaled one for `thumbnail`; the output
///   plus rows for `stream`), then the answer's resized bitmap;
/// - and a request's own fixed share (`perRequestBytes`: connection buffers, a strategy, tables).
/// Under jemalloc every large block is rounded up to its size class (four a power of two).
package struct RequestCost: Sendable, Equatable {
    /// How the request holds its image's bytes before it renders.
    package enum BodyHolding: String, Sendable, Equatable, Codable {
        /// In a buffer grown by doubling, then copied into the `Data` handed over (URLSession's
        /// data tasks, and the undeclared).
        case grownThenCopied
        /// In one buffer sized from Content-Length (libcurl into memory: `curl-memory`).
        case presized
        /// Appended into one `ByteBuffer` (an upload collected by Hummingbird).
        case collected
        /// Streamed to a file: never in memory whole; the stream's buffers may still be live while
        /// it renders (URLSession's streaming task: 2.2 MB alone, 7.1 MB beside a stream render).
        case file
    }

    /// What the prediction knows of the image.
    package struct Image: Sendable, Equatable {
        package var format: ImageFormat?
        package var width: Int
        package var height: Int
        package var bodyBytes: Int

        package init(format: ImageFormat?, width: Int, height: Int, bodyBytes: Int) {
            self.format = format
            self.width = width
            self.height = height
            self.bodyBytes = bodyBytes
        }
    }

    package var holding: BodyHolding
    /// The renderer's name: none, full, thumbnail, stream, or a user's (predicted as `full`).
    package var renderer: String
    package var maxPixel: Int
    package var allocator: Allocator

    /// A request's share that is not its image: NIO's buffers, a strategy, decoder tables.
    package static let perRequestBytes = 1 << 20
    /// A body streamed to a file: the strategies' buffers (URLSession's streaming delegate holds
    /// the most, 2.2 MB in a single trial under glibc).
    package static let streamingBytes = 4 << 20
    /// The stream renderer's rows beside its output, per column of the image.
    package static let streamBytesPerColumn = 64
    /// An upload's first bytes read for its header at most (a JPEG's metadata before it included).
    package static let uploadHeadBytes = 256 << 10

    package init(holding: BodyHolding, renderer: String, maxPixel: Int, allocator: Allocator) {
        self.holding = holding
        self.renderer = renderer
        self.maxPixel = maxPixel
        self.allocator = allocator
    }

    /// How a request holds its body: by its strategy's floor rule (GET), or as its upload is held (POST).
    package static func holding(strategy: (any FetchStrategy.Type)?, upload: UploadBody) -> BodyHolding {
        guard let strategy else { return upload == .file ? .file : .collected }
        if case .streamingBuffer = strategy.floor { return .file }
        return strategy == CurlMemoryStrategy.self ? .presized : .grownThenCopied
    }

    /// The bytes a request for `image` holds at most, its fixed share and its answer included.
    package func bytes(for image: Image) -> Int {
        Self.perRequestBytes + max(fetchingBytes(image), renderingBytes(image) + answerBytes(image))
    }

    /// What a single trial of the same strategy and renderer holds at most (no answer is made):
    /// the part of the prediction the committed trials calibrate.
    package func trialBytes(for image: Image) -> Int {
        Self.perRequestBytes + max(fetchingBytes(image), renderingBytes(image))
    }

    /// While the body arrives.
    package func fetchingBytes(_ image: Image) -> Int {
        let body = image.bodyBytes
        switch holding {
        case .grownThenCopied: return rounded(Self.nextPowerOfTwo(body)) + rounded(body)
        case .presized: return rounded(body)
        case .collected: return 2 * rounded(Self.nextPowerOfTwo(body))
        case .file: return Self.streamingBytes
        }
    }

    /// While it renders: the body (or a stream's buffers) still held, and the renderer's bitmap and state.
    package func renderingBytes(_ image: Image) -> Int {
        let body = image.bodyBytes
        let held: Int
        switch holding {
        case .grownThenCopied, .presized: held = rounded(body)
        case .collected: held = rounded(Self.nextPowerOfTwo(body))
        case .file: held = Self.streamingBytes
        }
        guard renderer != RenderMode.none.rawValue else { return held }
        let (width, height) = (max(1, image.width), max(1, image.height))
        let shown = FloorParts.scaledSize(width: width, height: height, maxPixel: maxPixel)
        return held + rounded(workingBytes(image, width: width, height: height, shown: shown))
    }

    /// The answer beside what renders: the resized bitmap (its JPEG is smaller); with `none`, the
    /// body read from its file (when it is in one) and copied into the response.
    package func answerBytes(_ image: Image) -> Int {
        guard renderer != RenderMode.none.rawValue else {
            return rounded(image.bodyBytes) * (holding == .file ? 2 : 1)
        }
        let shown = FloorParts.scaledSize(width: max(1, image.width), height: max(1, image.height), maxPixel: maxPixel)
        return rounded(shown.0 * shown.1 * 4)
    }

    /// The renderer's own bitmap and state at its largest.
    private func workingBytes(_ image: Image, width: Int, height: Int, shown: (Int, Int)) -> Int {
        let whole = width * height * 4
        let output = shown.0 * shown.1 * 4
        switch (renderer, image.format) {
        case (RenderMode.thumbnail.rawValue, .jpeg?):
            let scaled = Self.dctScaledSize(width: width, height: height, maxPixel: maxPixel)
            return scaled.0 * scaled.1 * 4
        case (RenderMode.thumbnail.rawValue, .png?), (RenderMode.thumbnail.rawValue, .webp?):
            return output + 16 * width
        case (RenderMode.stream.rawValue, .heic?), (RenderMode.stream.rawValue, .avif?):
            return width * height * 2 + output  // the decoded planes, then the output
        case (RenderMode.stream.rawValue, _):
            // 1.1-1.3x its output (REPORT.md, encodings), and its rows.
            return output * 5 / 4 + Self.streamBytesPerColumn * width
        default:
            return whole  // full, HEIF thumbnails, a user's renderer
        }
    }

    /// libjpeg-turbo's DCT scaling (1/1, 1/2, 1/4, 1/8): the smallest image whose long side is still
    /// at least `maxPixel` (the thumbnail renderer's first step).
    package static func dctScaledSize(width: Int, height: Int, maxPixel: Int) -> (Int, Int) {
        var denominator = 1
        while denominator < 8, max(width, height) / (denominator * 2) >= maxPixel { denominator *= 2 }
        return ((width + denominator - 1) / denominator, (height + denominator - 1) / denominator)
    }

    package static func nextPowerOfTwo(_ value: Int) -> Int {
        guard value > 1 else { return 1 }
        return 1 << (Int.bitWidth - (value - 1).leadingZeroBitCount)
    }

    /// A block's size as the allocator gives it: jemalloc's size classes above 16 KiB are four a
    /// power of two (a 13.1 MB body takes 14.7 MB); glibc's are pages, nothing worth counting.
    package func rounded(_ bytes: Int) -> Int {
        guard allocator == .jemalloc, bytes > 16 << 10 else { return bytes }
        let step = Self.nextPowerOfTwo(bytes) / 8
        return (bytes + step - 1) / step * step
    }
}
