/// The least memory a fetch API's contract makes any implementation hold at once: a strategy's
/// floor rule, declared next to it in its catalog entry.
public enum FetchFloor: Sendable, Equatable {
    /// Not declared: the cell has no floor (an empty `floor_bytes`).
    case undeclared
    /// The API hands over the whole body in memory: it needs the body once.
    case bodyInMemory
    /// The API streams the body somewhere else (a file): it needs one buffer of this size.
    case streamingBuffer(bytes: Int)

    /// The buffer a streaming-to-file strategy needs, whatever the body's size.
    public static let fileStreamingBufferBytes = 64 * 1024
}

/// The least memory a renderer's output makes any implementation hold once it is shown: a
/// renderer's floor rule. A renderer decoding from a body in memory needs that body beside its
/// bitmap; a decoder's own working state is not floor.
public enum RenderFloor: Sendable, Equatable {
    /// Not declared: the cell has no floor (an empty `floor_bytes`).
    case undeclared
    /// Nothing is decoded.
    case nothing
    /// The whole image in 8-bit RGBA: width x height x 4.
    case fullBitmap
    /// 8-bit RGBA at `--max-pixel` on the longer side, aspect kept, never upscaled.
    case scaledBitmap
}

extension RenderFloor {
    /// The bitmap this rule keeps shown for an image of `width` x `height` (8-bit RGBA): nothing
    /// for `.nothing`, nil when undeclared.
    package func bitmapBytes(width: Int, height: Int, maxPixel: Int) -> Int? {
        switch self {
        case .undeclared: return nil
        case .nothing: return 0
        case .fullBitmap: return width * height * 4
        case .scaledBitmap:
            let size = FloorParts.scaledSize(width: width, height: height, maxPixel: maxPixel)
            return size.0 * size.1 * 4
        }
    }
}

/// A cell's floor, by the role that holds each part: the body, a streaming buffer, the bitmap.
package struct FloorParts: Codable, Sendable, Equatable {
    package var bodyBytes = 0
    package var bodyBufferBytes = 0
    package var bitmapBytes = 0

    package init(bodyBytes: Int = 0, bodyBufferBytes: Int = 0, bitmapBytes: Int = 0) {
        self.bodyBytes = bodyBytes
        self.bodyBufferBytes = bodyBufferBytes
        self.bitmapBytes = bitmapBytes
    }

    package var totalBytes: Int { bodyBytes + bodyBufferBytes + bitmapBytes }

    package func bytes(of role: HolderRole) -> Int {
        switch role {
        case .body: return bodyBytes
        case .bodyBuffer: return bodyBufferBytes
        case .bitmap: return bitmapBytes
        case .decoder, .cache, .other: return 0
        }
    }

    /// The floor of a trial: the larger of what the fetch needs (its rule) and what the render
    /// needs once shown (its bitmap, with the body beside it when the body is in memory). Nil when
    /// either rule is undeclared, or a bitmap is needed and the image's size is unknown.
    package static func of(
        fetch: FetchFloor,
        render: RenderFloor,
        payloadBytes: Int,
        bodyInMemory: Bool,
        imageWidth: Int?,
        imageHeight: Int?,
        maxPixel: Int
    ) -> FloorParts? {
        let fetching: FloorParts
        switch fetch {
        case .undeclared: return nil
        case .bodyInMemory: fetching = FloorParts(bodyBytes: payloadBytes)
        case .streamingBuffer(let bytes): fetching = FloorParts(bodyBufferBytes: bytes)
        }
        let bitmap: Int
        switch render {
        case .undeclared: return nil
        case .nothing: return fetching
        case .fullBitmap, .scaledBitmap:
            guard let width = imageWidth, let height = imageHeight, width > 0, height > 0,
                let bytes = render.bitmapBytes(width: width, height: height, maxPixel: maxPixel)
            else { return nil }
            bitmap = bytes
        }
        let shown = FloorParts(bodyBytes: bodyInMemory ? payloadBytes : 0, bitmapBytes: bitmap)
        return shown.totalBytes >= fetching.totalBytes ? shown : fetching
    }

    /// `maxPixel` on the longer side, the shorter one in proportion (rounded, at least 1); an
    /// image no larger than that keeps its size.
    package static func scaledSize(width: Int, height: Int, maxPixel: Int) -> (Int, Int) {
        let long = max(width, height)
        guard maxPixel > 0, long > maxPixel else { return (width, height) }
        func scaled(_ side: Int) -> Int { max(1, Int((Double(side) * Double(maxPixel) / Double(long)).rounded())) }
        return width >= height ? (maxPixel, scaled(height)) : (scaled(width), maxPixel)
    }
}
