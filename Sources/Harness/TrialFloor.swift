import BenchCore
import Imaging
import Strategies

/// A trial's floor (`FloorParts.of`), computed in the child once its window has closed: the
/// strategy's and the renderer's rules, the body's size and where it is, and the image's size
/// from its header (no pixel decoded).
enum TrialFloor {
    static func of(
        strategy: any FetchStrategy.Type,
        renderer: any RenderStrategy.Type,
        payload: Payload,
        maxPixel: Int
    ) -> FloorParts? {
        let source: EncodedImage
        let inMemory: Bool
        switch payload {
        case .memory(let data): (source, inMemory) = (.memory(data), true)
        case .file(let url): (source, inMemory) = (.file(path: url.path), false)
        }
        let needsSize = renderer.floor == .fullBitmap || renderer.floor == .scaledBitmap
        let info = needsSize ? try? ImageDecoder.inspect(source) : nil
        return FloorParts.of(
            fetch: strategy.floor,
            render: renderer.floor,
            payloadBytes: payload.byteCount,
            bodyInMemory: inMemory,
            imageWidth: info?.width,
            imageHeight: info?.height,
            maxPixel: maxPixel
        )
    }
}
