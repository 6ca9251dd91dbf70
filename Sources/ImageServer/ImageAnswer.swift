import BenchCore
import Foundation
import Harness
import Imaging
import Strategies

/// What `GET /image/NAME` answers once the image is fetched (and `POST /image` once its upload is
/// received): the image rendered with the spec's renderer (a built-in one or a user's, from the
/// catalog), area-averaged down to `maxPixel` when larger, and encoded as a baseline JPEG; with
/// `none`, the fetched (or uploaded) bytes themselves. A user's renderer whose image holds pixels the
/// harness cannot read (its storage is the user's own type) is answered with the size it rendered, as
/// text, the image held while the answer is made: the memory is the renderer's, the answer says so.
package struct ImageAnswer: Sendable {
    package var bytes: Data
    package var contentType: String

    /// `renderer`: resolved once, when the server starts (`RendererCatalog`).
    package static func make(
        from payload: Payload,
        renderer: any RenderStrategy.Type,
        limits: RenderLimits,
        quality: Int
    ) throws -> ImageAnswer {
        guard renderer.name != RenderMode.none.rawValue else {
            switch payload {
            case .memory(let data): return ImageAnswer(bytes: data, contentType: "application/octet-stream")
            case .file(let url):
                return ImageAnswer(bytes: try Data(contentsOf: url), contentType: "application/octet-stream")
            }
        }
        guard let rendered = try renderer.init(limits: limits).render(payload) else {
            throw ImagingError.decodeFailed("the \(renderer.name) renderer gave no image")
        }
        guard let image = rendered.storage as? DecodedImage else {
            let text = "\(renderer.name) rendered \(rendered.width)x\(rendered.height)\n"
            return withExtendedLifetime(rendered) { ImageAnswer(bytes: Data(text.utf8), contentType: "text/plain") }
        }
        let size = StreamResampling.outputSize(width: image.width, height: image.height, maxPixel: limits.maxPixel)
        let shown =
            size.width < image.width || size.height < image.height
            ? try StreamResampling.areaAveraged(image, width: size.width, height: size.height) : image
        return ImageAnswer(bytes: try encode(shown, quality: quality), contentType: "image/jpeg")
    }

    /// The bitmap's RGB (alpha dropped) as a baseline 4:2:0 JPEG, 16 rows at a time.
    static func encode(_ image: DecodedImage, quality: Int) throws -> Data {
        let pixels = image.pixels.assumingMemoryBound(to: UInt8.self)
        let width = image.width
        return try JPEGEncoder.encodeRGB(width: width, height: image.height, quality: quality, progressive: false) {
            y,
            row in
            let source = pixels + y * width * 4
            for x in 0..<width {
                row[x * 3] = source[x * 4]
                row[x * 3 + 1] = source[x * 4 + 1]
                row[x * 3 + 2] = source[x * 4 + 2]
            }
        }
    }
}
