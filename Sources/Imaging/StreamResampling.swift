import CResample

/// The stream renderer's output size and its area-averaging resampler (CResample), the one every
/// format's stream path pushes its rows through.
package enum StreamResampling {
    /// `maxPixel` on the long side, aspect kept (rounded), never upscaled: 6000x4000 at 1024 is 1024x683.
    /// The stream render's output size for `info`, once its allocation (the output bitmap and the
    /// decoder's own `internalBytes`) is within the budget (`ImageDecoder.checkBudget`).
    static func checkedOutputSize(
        _ info: ImageInfo,
        maxPixel: Int,
        maxImagePixels: Int,
        internalBytes: Int
    ) throws -> (width: Int, height: Int) {
        let size = outputSize(width: info.width, height: info.height, maxPixel: maxPixel)
        let bytes = Saturating.sum(Saturating.product(size.width, size.height, 4), internalBytes)
        try ImageDecoder.checkBudget(
            info,
            allocates: bytes,
            how: "a \(size.width)x\(size.height) stream render",
            maxImagePixels: maxImagePixels
        )
        return size
    }

    package static func outputSize(width: Int, height: Int, maxPixel: Int) -> (width: Int, height: Int) {
        var outputWidth: Int32 = 0
        var outputHeight: Int32 = 0
        resample_output_size(
            Int32(clamping: width),
            Int32(clamping: height),
            Int32(clamping: max(1, maxPixel)),
            &outputWidth,
            &outputHeight
        )
        return (Int(outputWidth), Int(outputHeight))
    }

    /// `image` (all four channels) through the same resampler, to width x height: what a stream
    /// render of the same pixels gives, to compare it with.
    package static func areaAveraged(_ image: DecodedImage, width: Int, height: Int) throws -> DecodedImage {
        let output = try DecodedImage(width: width, height: height)
        var state = resample_state()
        defer { resample_free(&state) }
        guard
            resample_init(
                &state,
                Int32(image.width),
                Int32(image.height),
                Int32(width),
                Int32(height),
                4,
                output.pixels.assumingMemoryBound(to: UInt8.self)
            ) != 0
        else {
            throw ImagingError.decodeFailed("out of memory for the resampler's rows")
        }
        let rows = image.pixels.assumingMemoryBound(to: UInt8.self)
        for y in 0..<image.height { resample_push(&state, rows + y * image.width * 4) }
        return output
    }
}
