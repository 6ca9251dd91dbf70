import Glibc

/// A decoded bitmap: 8-bit RGBA, 4 bytes per pixel, rows packed without padding.
/// It owns exactly one malloc'd block of `byteCount` bytes, freed in deinit, so its
/// lifetime is the lifetime of the bitmap in a memory measurement.
///
/// `@unchecked Sendable`: the pixels are written once, by the decoder, before the
/// image is returned, and only read afterwards.
public final class DecodedImage: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public var bytesPerPixel: Int { 4 }
    public var byteCount: Int { width * height * 4 }
    public let pixels: UnsafeMutableRawPointer

    /// Allocates an uninitialised bitmap; the decoder fills it. malloc (not Swift's
    /// allocator) so the block is one plain heap allocation that the probes can see.
    package init(width: Int, height: Int) throws {
        guard width > 0, height > 0 else { throw ImagingError.decodeFailed("cannot make a \(width)x\(height) bitmap") }
        let bytes = Saturating.product(width, height, 4)
        guard bytes < Int.max, let block = malloc(bytes) else {
            throw ImagingError.decodeFailed("cannot allocate \(width)x\(height) RGBA bitmap")
        }
        self.width = width
        self.height = height
        self.pixels = block
    }

    deinit { free(pixels) }

    /// FNV-1a over about 4096 evenly spaced pixels plus the size: cheap, but it reads
    /// the bitmap, so the decode cannot be optimised away, and two decodes of the same
    /// file give the same value.
    public func checksum() -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ value: UInt64) {
            hash ^= value
            hash = hash &* 0x0000_0100_0000_01B3
        }
        mix(UInt64(width))
        mix(UInt64(height))
        let pixelCount = width * height
        let step = max(1, pixelCount / 4096)
        for index in stride(from: 0, to: pixelCount, by: step) {
            mix(UInt64(pixels.load(fromByteOffset: index * 4, as: UInt32.self)))
        }
        mix(UInt64(pixels.load(fromByteOffset: (pixelCount - 1) * 4, as: UInt32.self)))
        return hash
    }
}
