import CJPEGCodec
import Foundation

/// Makes the deterministic test image and caches it on disk by its parameters.
public enum FixtureGenerator {
    /// The same bytes for the same spec, every time, on every machine with the same
    /// encoder library. Pixels come from `jpegcodec_fixture_row` (integer-only C, so a
    /// debug build is still fast); `spec.encoding` picks the format and its options.
    public static func make(_ spec: FixtureSpec) throws -> Data {
        guard spec.width > 0, spec.height > 0, spec.width <= 65500, spec.height <= 65500,
              let pixels = jpegcodec_fixture_create(Int32(spec.width), Int32(spec.height), spec.seed,
                                                    Int32(FixtureSpec.grainAmplitude)) else {
            throw ImagingError.encodeFailed("cannot make a \(spec.width)x\(spec.height) fixture")
        }
        defer { jpegcodec_fixture_destroy(pixels) }
        return try FixtureEncoders.encode(spec, pixels: pixels)
    }

    /// The fixture as a JPEG (the spec's JPEG encoding; a non-JPEG encoding is refused).
    public static func makeJPEG(_ spec: FixtureSpec) throws -> Data {
        guard spec.encoding.format == .jpeg else {
            throw ImagingError.encodeFailed("makeJPEG was asked for a \(spec.encoding.rawValue) fixture")
        }
        return try make(spec)
    }

    /// The fixture's file in `directory`: reused if present, else generated and written
    /// atomically (a temporary file in the same directory, then rename), so concurrent
    /// callers never see a partial file. Two racing writers produce the same bytes.
    public static func cachedFixture(_ spec: FixtureSpec, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(spec.fileName)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ImagingError.io("cannot create \(directory.path): \(error)")
        }
        let data = try make(spec)
        let temporary = directory.appendingPathComponent(".\(spec.fileName).\(getpid()).\(UUID().uuidString).tmp")
        do {
            try data.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ImagingError.io("cannot write \(temporary.path): \(error)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw ImagingError.io("cannot rename \(temporary.path) to \(url.path): \(reason)")
        }
        return url
    }

    /// $XDG_CACHE_HOME (if set and absolute, as the XDG spec requires) or ~/.cache,
    /// then image-memory-bench/fixtures.
    public static var defaultCacheDirectory: URL {
        let base: URL
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        }
        return base.appendingPathComponent("image-memory-bench", isDirectory: true)
            .appendingPathComponent("fixtures", isDirectory: true)
    }
}
