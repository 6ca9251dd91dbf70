import BenchCore
import CJPEGCodec
import Foundation

/// Makes the deterministic test image and caches it on disk by its parameters.
public enum FixtureGenerator {
    /// The same bytes for the same spec, every time, on every machine with the same
    /// encoder library. Pixels come from `jpegcodec_fixture_row` (integer-only C, so a
    /// debug build is still fast); `spec.encoding` picks the format and its options.
    package static func make(_ spec: FixtureSpec) throws -> Data {
        guard spec.width > 0, spec.height > 0, spec.width <= 65500, spec.height <= 65500,
            let pixels = jpegcodec_fixture_create(
                Int32(spec.width),
                Int32(spec.height),
                spec.seed,
                Int32(FixtureSpec.grainAmplitude)
            )
        else {
            throw ImagingError.encodeFailed("cannot make a \(spec.width)x\(spec.height) fixture")
        }
        defer { jpegcodec_fixture_destroy(pixels) }
        return try FixtureEncoders.encode(spec, pixels: pixels)
    }

    /// The fixture as a JPEG (the spec's JPEG encoding; a non-JPEG encoding is refused).
    package static func makeJPEG(_ spec: FixtureSpec) throws -> Data {
        guard spec.encoding.format == .jpeg else {
            throw ImagingError.encodeFailed("makeJPEG was asked for a \(spec.encoding.rawValue) fixture")
        }
        return try make(spec)
    }

    /// The fixture's file in `directory`: reused if present, else generated and written
    /// atomically (`SafeFile`: a temporary file in the same directory, then rename), so concurrent
    /// callers never see a partial file. Two racing writers produce the same bytes.
    public static func cachedFixture(_ spec: FixtureSpec, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(spec.fileName)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        // mkdir -p by hand: FileManager's error prints as an NSError dump, not the reason.
        guard makeFolders(directory.path) else {
            throw ImagingError.io(
                "cannot create the fixture cache folder \(directory.path): \(String(cString: strerror(errno))); "
                    + "choose another with --fixture-cache <folder>"
            )
        }
        let data = try make(spec)
        do {
            try SafeFile.write(data, to: url.path)
        } catch let failure as SafeFile.Failure {
            throw ImagingError.io(
                "cannot write the fixture cache file \(url.path): \(failure.reason); "
                    + "free some space or choose another cache with --fixture-cache <folder>"
            )
        }
        return url
    }

    /// image-memory-bench/fixtures under the first of $XDG_CACHE_HOME (if absolute, as the XDG spec
    /// requires), $HOME/.cache and the password file's home's .cache that exists or can be made;
    /// else under the temporary directory (image-memory-bench-<uid>, so users of one /tmp do not
    /// collide). $HOME before the password file: on Linux FileManager's home is the password file's,
    /// and a CI container user whose home there is /nonexistent got an error although $HOME was fine.
    public static var defaultCacheDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        // (base, the folder that must already exist): a home is never created, so a home of
        // /nonexistent is passed over even by root, who could make it.
        var bases: [(cache: URL, existing: String)] = []
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            bases.append((URL(fileURLWithPath: xdg, isDirectory: true), "/"))
        }
        // $HOME, then the password file's.
        let homes: [String?] = [environment["HOME"], FileManager.default.homeDirectoryForCurrentUser.path]
        for home in homes {
            guard let home, home.hasPrefix("/") else { continue }
            bases.append(
                (
                    URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true),
                    home
                )
            )
        }
        let candidates = bases.map {
            (
                $0.cache.appendingPathComponent("image-memory-bench", isDirectory: true).appendingPathComponent(
                    "fixtures",
                    isDirectory: true
                ), $0.existing
            )
        }
        return candidates.first(where: { canMake($0.0.path, inside: $0.1) })?.0
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "image-memory-bench-\(getuid())",
                isDirectory: true
            )
            .appendingPathComponent("fixtures", isDirectory: true)
    }

    /// Whether `path` is a folder we may write in, or could be made: its nearest existing ancestor
    /// is one, and is `existing` or below it. Nothing is created (commands that never cache ask too).
    static func canMake(_ path: String, inside existing: String) -> Bool {
        let existing = (existing as NSString).standardizingPath
        var path = (path as NSString).standardizingPath
        while true {
            var info = stat()
            if stat(path, &info) == 0 { return (info.st_mode & S_IFMT) == S_IFDIR && access(path, W_OK | X_OK) == 0 }
            guard errno == ENOENT, path != existing, path != "/" else { return false }
            path = (path as NSString).deletingLastPathComponent
        }
    }

    /// `mkdir -p path`; false with errno set when a component cannot be made.
    static func makeFolders(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR { return true }
            errno = ENOTDIR
            return false
        }
        let parent = (path as NSString).deletingLastPathComponent
        if parent != path, !parent.isEmpty, !makeFolders(parent) { return false }
        return mkdir(path, 0o755) == 0 || errno == EEXIST  // EEXIST: a racing caller made it
    }
}
