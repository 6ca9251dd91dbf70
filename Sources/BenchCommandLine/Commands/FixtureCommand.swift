import ArgumentParser
import Foundation
import Imaging

struct FixtureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixture",
        abstract: "Write the deterministic test image in any encoding (by default the article's 6000x4000, ~13.1 MB).",
        discussion: "The same parameters always give the same bytes. Without --out the file is made in (or reused from) the fixture cache and its path printed. --out an existing folder puts the file in it, under the cache's name.")

    @OptionGroup var fixture: FixtureOptions

    @Option(help: "Write the image to this path.")
    var out: String?

    func run() throws {
        let spec = fixture.spec
        let started = Date()
        let cached = try FixtureGenerator.cachedFixture(spec, in: fixture.cacheDirectory)
        var path = cached.path
        if let out {
            let destination = try Self.place(cached, at: out)
            path = destination.path
        }
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        print("\(path)")
        print(String(format: "%dx%d %@, quality %d, seed %llu: %d bytes (%.2f MB), %.1f s",
                     spec.width, spec.height, spec.encoding.summary, spec.quality, spec.seed,
                     size, Double(size) / 1e6, Date().timeIntervalSince(started)))
    }

    /// Copies `file` to `out`, or into it when `out` is a folder (as cp does): never removes a
    /// folder, and replaces an existing file atomically (a copy beside it, then rename(2)), so an
    /// `--out` naming the cached file itself, or a folder of the user's, loses nothing.
    static func place(_ file: URL, at out: String) throws -> URL {
        var isFolder: ObjCBool = false
        var destination = URL(fileURLWithPath: out)
        if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), isFolder.boolValue {
            destination = destination.appendingPathComponent(file.lastPathComponent)
        }
        let partial = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(getpid()).partial")
        try? FileManager.default.removeItem(at: partial)
        do {
            try FileManager.default.copyItem(at: file, to: partial)
        } catch {
            throw BenchFailure(.cannotCreateOutput, "--out \(out): cannot write \(destination.path): \(error.localizedDescription)").reported()
        }
        guard rename(partial.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: partial)
            throw BenchFailure(.cannotCreateOutput, "--out \(out): cannot write \(destination.path): \(reason)").reported()
        }
        return destination
    }
}
