import BenchCore
import ImageServer

/// The image server's floor at its heap peak: what the existing rules (`FloorParts`) say a request
/// must hold in the stage it was in, times the requests in that stage. Fetching: the strategy's
/// fetch floor (the body in memory, or a streaming buffer); waiting to render: the body when it
/// is in memory; rendering: the trial's floor (the body beside the bitmap, or the bitmap); writing:
/// the answer. nil when a rule is undeclared or the image's size is unknown.
package enum ServerFloor {
    package static func bytes(
        stages: StageCounts,
        fetch: FetchFloor,
        render: RenderFloor,
        payloadBytes: Int,
        imageWidth: Int?,
        imageHeight: Int?,
        maxPixel: Int,
        answerBytes: Int
    ) -> Int? {
        let bodyInMemory = fetch == .bodyInMemory
        guard
            let fetching = FloorParts.of(
                fetch: fetch,
                render: .nothing,
                payloadBytes: payloadBytes,
                bodyInMemory: bodyInMemory,
                imageWidth: nil,
                imageHeight: nil,
                maxPixel: maxPixel
            ),
            let rendering = FloorParts.of(
                fetch: fetch,
                render: render,
                payloadBytes: payloadBytes,
                bodyInMemory: bodyInMemory,
                imageWidth: imageWidth,
                imageHeight: imageHeight,
                maxPixel: maxPixel
            )
        else { return nil }
        return stages.fetching * fetching.totalBytes
            + stages.waitingToRender * (bodyInMemory ? payloadBytes : 0)
            + stages.rendering * rendering.totalBytes
            + stages.writing * answerBytes
    }
}
