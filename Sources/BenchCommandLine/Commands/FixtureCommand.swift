import ArgumentParser
import Foundation
import Imaging

struct FixtureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixture",
        abstract: "Write the deterministic test image in any encoding (by default the article's 6000x4000, ~13.1 MB).",
        discussion: "The same parameters always give the same bytes. Without --out the file is made in (or reused from) the fixture cache and its path printed.")

    @OptionGroup var fixture: FixtureOptions

    @Option(help: "Write the image to this path.")
    var out: String?

    func run() throws {
        let spec = fixture.spec
        let started = Date()
        let cached = try FixtureGenerator.cachedFixture(spec, in: fixture.cacheDirectory)
        var path = cached.path
        if let out {
            let destination = URL(fileURLWithPath: out)
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.copyItem(at: cached, to: destination)
            path = destination.path
        }
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        print("\(path)")
        print(String(format: "%dx%d %@, quality %d, seed %llu: %d bytes (%.2f MB), %.1f s",
                     spec.width, spec.height, spec.encoding.summary, spec.quality, spec.seed,
                     size, Double(size) / 1e6, Date().timeIntervalSince(started)))
    }
}
