import ArgumentParser
import BenchCore
import Foundation
import Imaging
import Measuring

struct FixtureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixture",
        abstract: "Write the deterministic test image in any encoding (by default the article's 6000x4000, ~13.1 MB).",
        discussion:
            "The same parameters always give the same bytes. Without --out the file is made in (or reused from) the fixture cache and its path printed. --out an existing folder puts the file in it, under the cache's name."
    )

    @OptionGroup var fixture: FixtureOptions

    @OptionGroup var output: OutFolderOption<FixtureCommand>
    var out: String? { output.out }

    func run() throws {
        let spec = fixture.spec
        let started = Date()
        let cached: URL
        do {
            cached = try FixtureGenerator.cachedFixture(spec, in: fixture.cacheDirectory)
        } catch ImagingError.io(let message) {
            // A cache that is full, read-only or not a folder: the cache cannot be created.
            throw BenchFailure(.cannotCreateOutput, message).reported()
        }
        var path = cached.path
        if let out {
            let destination = try Self.place(cached, at: out)
            path = destination.path
        }
        // The cached file's size: the bytes written, also through a symlink or into /dev/null.
        let size = (try FileManager.default.attributesOfItem(atPath: cached.path)[.size] as? NSNumber)?.intValue ?? 0
        print("\(path)")
        print(
            String(
                format: "%dx%d %@, quality %d, seed %llu: %d bytes (%.2f MB), %.1f s",
                spec.width,
                spec.height,
                spec.encoding.summary,
                spec.quality,
                spec.seed,
                size,
                Double(size) / 1e6,
                Date().timeIntervalSince(started)
            )
        )
    }

    /// Copies `file` to `out`, or into it when `out` is a folder (as cp does), through `SafeFile`:
    /// never removes a folder; replaces an existing file atomically (a copy beside it, then
    /// rename(2)), so an `--out` naming the cached file itself loses nothing; follows a symlink and
    /// replaces its target; writes through a character device (/dev/null) or a FIFO being read;
    /// and on failure (a full disk) leaves no partial copy behind.
    static func place(_ file: URL, at out: String) throws -> URL {
        var isFolder: ObjCBool = false
        var destination = URL(fileURLWithPath: out)
        if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), isFolder.boolValue {
            destination = destination.appendingPathComponent(file.lastPathComponent)
        }
        do {
            try SafeFile.copy(fileAt: file.path, to: destination.path)
        } catch let failure as SafeFile.Failure {
            throw BenchFailure(.cannotCreateOutput, "--out \(out): cannot write \(destination.path): \(failure.reason)")
                .reported()
        }
        return destination
    }
}

extension FixtureCommand: OutDefaults {
    static let outHelp = "Write the image to this path (a folder: into it, under the cache's name)."
    static let outInstead = "a file or a folder (or no --out for the cached file's path)"
}
