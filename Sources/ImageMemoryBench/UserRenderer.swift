import BenchCore
import Foundation
import Harness
import Imaging
import Strategies

/// Puts a user's async ``ImageRenderer`` behind the harness's blocking render protocol: the
/// child's trial thread waits while the render runs on the concurrency pool.
struct UserRenderer<Base: ImageRenderer>: RenderStrategy {
    static var name: String { Base.name }
    static var summary: String { Base.summary }
    static var floor: RenderFloor { Base.floor }

    private let base: Base

    init(limits: RenderLimits) {
        base = Base(limits: limits)
    }

    /// A warm-up that fails is not the trial's failure: the renderer sees the trial's limits, which
    /// may refuse even the tiny warm-up image (`--max-image-pixels 1000`), and the measured render
    /// then reports on the measured image, in its own words.
    func warmUp(image: URL?) throws {
        let base = self.base
        for payload in try Renderer.warmUpPayloads(image: image) {
            _ = try? runBlocking { try await base.warmUp(payload) }
        }
    }

    func render(_ payload: Payload) throws -> RenderedImage? {
        let base = self.base
        return try Self.reporting { try runBlocking { try await base.render(payload) } }
    }

    /// A renderer's own error is the image's failure to render (a `decode_error` row, in the
    /// renderer's words), not the harness's; the harness's decoders' errors pass as they are.
    private static func reporting<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as ImagingError {
            throw error
        } catch let error as FetchError {
            throw error
        } catch {
            throw FetchError.undecodable("\(Base.name): \(String(describing: type(of: error))): \(error)")
        }
    }
}

extension ImageRenderer {
    /// This renderer as the catalog holds it.
    package static var catalogEntry: any RenderStrategy.Type { UserRenderer<Self>.self }
}
