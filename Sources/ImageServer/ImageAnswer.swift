import BenchCore
import Foundation
import Harness
import Imaging
import Strategies

/// What `GET /image/NAME` answers once the image is fetched (and `POST /image` once its upload is
/// received): the image rendered with the spec's renderer, area-averaged down to `maxPixel` when
/// larger, and encoded as a baseline JPEG; with `none`, the fetched (or uploaded) bytes themselves.
package enum ImageAnswer {
    package static func make(
        from payload: Payload,
        render: RenderMode,
        maxPixel: Int,
        quality: Int,
        maxImagePixels: Int
    ) throws -> Data {
        guard render != .none else {
            switch payload {
            case .memory(let data): return data
            case .file(let url): return try Data(contentsOf: url)
            }
        }
        guard let image = try Renderer.render(payload, mode: render, maxPixel: maxPixel, maxImagePixels: maxImagePixels)
        else {
            throw ImagingError.decodeFailed("the \(render.rawValue) renderer gave no image")
        }
        let size = StreamResampling.outputSize(width: image.width, height: image.height, maxPixel: maxPixel)
        let shown =
            size.width < image.width || size.height < image.height
            ? try StreamResampling.areaAveraged(image, width: size.width, height: size.height) : image
        return try encode(shown, quality: quality)
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
