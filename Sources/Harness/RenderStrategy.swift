import BenchCore
import Foundation
import Imaging
import Strategies

/// One way of turning a fetched payload into pixels, as the child runs it: built in (none, full,
/// thumbnail) or a user's (ImageMemoryBench's `ImageRenderer`, bridged). One instance per trial.
package protocol RenderStrategy: SendableMetatype {
    /// The name `--render` takes and the results' `render` column holds.
    static var name: String { get }
    /// One line for `bench list`.
    static var summary: String { get }
    /// What its output needs once shown (the floor): nothing, the whole bitmap, or one at --max-pixel.
    static var floor: RenderFloor { get }
    init(limits: RenderLimits)
    /// Loads the decoder's code and tables before the baseline: `image` is a tiny image of the
    /// measured one's format when it is not a JPEG, else nil (a tiny JPEG is made here).
    func warmUp(image: URL?) throws
    /// The rendered image, which the child keeps alive until its last reading; nil when nothing is rendered.
    func render(_ payload: Payload) throws -> RenderedImage?
}

extension RenderStrategy {
    /// Undeclared: the cell's floor is unknown.
    package static var floor: RenderFloor { .undeclared }
}

/// The bounds a trial sets on its renderer (`--max-pixel`, `--max-image-pixels`).
public struct RenderLimits: Sendable {
    /// A thumbnail's longer side, in pixels.
    public var maxPixel: Int
    /// Decodes that would allocate more RGBA pixels than this are refused.
    public var maxImagePixels: Int
    /// Bounds of `maxPixel` on a thumbnail's longer side and `maxImagePixels` decoded pixels.
    public init(maxPixel: Int, maxImagePixels: Int) {
        self.maxPixel = maxPixel
        self.maxImagePixels = maxImagePixels
    }
}

/// What a renderer produced: its size for the row, and whatever holds its pixels, kept alive.
public struct RenderedImage: Sendable {
    /// The rendered bitmap's width in pixels (the row's `image_width`).
    public var width: Int
    /// The rendered bitmap's height in pixels (the row's `image_height`).
    public var height: Int
    /// Whatever holds the pixels (a bitmap object, an array): kept alive until the last reading.
    public var storage: any Sendable
    /// A rendered image of `width` x `height` pixels held by `storage`.
    public init(width: Int, height: Int, storage: any Sendable) {
        self.width = width
        self.height = height
        self.storage = storage
    }
}

/// The harness's built-in renderers, each a thin face on `Renderer` (shared with the scenarios).
struct BuiltInRenderer<Mode: BuiltInRenderMode>: RenderStrategy {
    static var name: String { Mode.mode.rawValue }
    static var summary: String { Mode.summary }
    static var floor: RenderFloor { Mode.floor }
    let limits: RenderLimits
    init(limits: RenderLimits) { self.limits = limits }

    func warmUp(image: URL?) throws {
        try Renderer.warmUp(mode: Mode.mode, image: image)
    }

    func render(_ payload: Payload) throws -> RenderedImage? {
        try Renderer.render(payload, mode: Mode.mode, maxPixel: limits.maxPixel, maxImagePixels: limits.maxImagePixels)
            .map { RenderedImage(width: $0.width, height: $0.height, storage: $0) }
    }
}

protocol BuiltInRenderMode {
    static var mode: RenderMode { get }
    static var summary: String { get }
    static var floor: RenderFloor { get }
}

enum NoRender: BuiltInRenderMode {
    static let mode = RenderMode.none
    static let summary = "fetch only, nothing decoded"
    static let floor = RenderFloor.nothing
}

enum FullRender: BuiltInRenderMode {
    static let mode = RenderMode.full
    static let summary = "decode the whole image to 8-bit RGBA (4 bytes a pixel), kept alive as if on screen"
    static let floor = RenderFloor.fullBitmap
}

enum ThumbnailRender: BuiltInRenderMode {
    static let mode = RenderMode.thumbnail
    static let floor = RenderFloor.scaledBitmap
    static let summary =
        "the cheapest decode each format allows to --max-pixel (JPEG DCT scaling, libwebp's scaled"
        + " decode, PNG row by row; HEIC/AVIF decode whole, then sample)"
}

enum StreamRender: BuiltInRenderMode {
    static let mode = RenderMode.stream
    static let floor = RenderFloor.scaledBitmap
    static let summary =
        "decode straight to --max-pixel, rows area-averaged as they come: JPEG (any scan structure)"
        + " by our lockstep decoder, PNG row by row (Adam7: a zlib state a pass), WebP incrementally,"
        + " HEIC/AVIF from planes"
}
