import BenchCore
import Foundation
import Harness

/// A way of turning a fetched image into what your app shows: your own decoder, a resize, a
/// third-party image pipeline. Measured like the built-in `none`, `full` and `thumbnail`.
///
/// In each trial's child the harness creates the renderer with ``init(limits:)``, calls
/// ``warmUp(_:)`` before the baseline, then measures the fetch and one ``render(_:)`` of its
/// payload, and keeps the ``RenderedImage`` alive until the last reading ("on screen").
///
/// Register your renderers with ``BenchMain/main(strategies:renderers:)``; `bench list` then
/// shows them, marked as yours, and `--render NAME` measures them with any strategy.
///
/// ```swift
/// struct MyRenderer: ImageRenderer {
///     static let name = "my-renderer"
///     static let summary = "my app's decode and resize"
///     let limits: RenderLimits
///     init(limits: RenderLimits) { self.limits = limits }
///     func render(_ payload: Payload) async throws -> RenderedImage {
///         let bitmap = try myDecode(payload, maxPixel: limits.maxPixel)
///         return RenderedImage(width: bitmap.width, height: bitmap.height, storage: bitmap)
///     }
/// }
/// ```
public protocol ImageRenderer: Sendable {
    /// The name used with `--render` and in the results' `render` column: letters, digits, `-`,
    /// `_` or `.`, distinct from every built-in renderer's name.
    static var name: String { get }

    /// One line for `bench list`.
    static var summary: String { get }

    /// What your output needs once shown, whatever the implementation: `.fullBitmap` (width x
    /// height x 4), `.scaledBitmap` (that at `--max-pixel` on the longer side, aspect kept, never
    /// upscaled) or `.nothing`; a body in memory is counted beside it. The default, `.undeclared`,
    /// leaves the `floor_bytes` column empty.
    static var floor: RenderFloor { get }

    /// Creates the renderer for one trial, with the trial's `--max-pixel` and `--max-image-pixels`.
    init(limits: RenderLimits)

    /// Loads your decoder's code and tables before the measurement starts. `image` is a tiny
    /// image: one of the measured image's format (from memory, then from a file), then a tiny
    /// JPEG. The default renders it and drops the result.
    func warmUp(_ image: Payload) async throws

    /// Renders the fetched body (in memory or in a file) and returns what holds the pixels.
    ///
    /// Throw for an image you cannot render: the row's status is then `decode_error`, with your
    /// error's description. The harness waits for this call on a thread of its own.
    func render(_ payload: Payload) async throws -> RenderedImage
}

extension ImageRenderer {
    /// Undeclared: the cells of this renderer have no floor.
    public static var floor: RenderFloor { .undeclared }

    /// Renders `image` and drops the result: enough to load most decoders' code and tables.
    public func warmUp(_ image: Payload) async throws {
        _ = try await render(image)
    }
}

/// What a renderer produced: its size, recorded in the row's `image_width` and `image_height`,
/// and the object that holds its pixels, which the harness keeps alive until its last reading.
public typealias RenderedImage = Harness.RenderedImage

/// The bounds a trial sets on its renderer: `maxPixel` (`--max-pixel`, a thumbnail's longer side)
/// and `maxImagePixels` (`--max-image-pixels`: refuse a decode that would allocate more RGBA
/// pixels, the guard against decompression bombs).
public typealias RenderLimits = Harness.RenderLimits
