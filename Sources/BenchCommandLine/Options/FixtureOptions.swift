import ArgumentParser
import Foundation
import Imaging

/// The parameters of the generated test image, shared by run, fixture and serve.
struct FixtureOptions: ParsableArguments {
    @Option(help: "Fixture width in pixels.")
    var width = FixtureSpec.article.width

    @Option(help: "Fixture height in pixels.")
    var height = FixtureSpec.article.height

    @Option(help: "JPEG quality of the fixture, 1-100.")
    var quality = FixtureSpec.article.quality

    @Option(help: "How the fixture is encoded: \(FixtureEncoding.names).")
    var encoding: FixtureEncoding = .jpeg

    @Flag(help: "Same as --encoding jpeg-progressive.")
    var progressive = false

    @Option(help: "Seed of the fixture's pixel generator: same seed, same bytes.")
    var seed: UInt64 = FixtureSpec.article.seed

    @Option(help: "Where generated fixtures are cached (default: image-memory-bench/fixtures under $XDG_CACHE_HOME, else $HOME/.cache).")
    var fixtureCache: String?

    var spec: FixtureSpec {
        var spec = FixtureSpec.article
        spec.width = width
        spec.height = height
        spec.quality = quality
        spec.encoding = progressive ? .jpegProgressive : encoding
        spec.seed = seed
        return spec
    }

    var cacheDirectory: URL { Self.cacheDirectory(fixtureCache) }

    /// A `--fixture-cache` value as a folder, or the default cache when it is not given.
    static func cacheDirectory(_ path: String?) -> URL {
        path.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FixtureGenerator.defaultCacheDirectory
    }

    func validate() throws {
        guard (16...30_000).contains(width), (16...30_000).contains(height) else {
            throw ValidationError("--width and --height must be between 16 and 30000 pixels (got \(width)x\(height))")
        }
        if progressive && ![.jpeg, .jpegProgressive].contains(encoding) {
            throw ValidationError("--progressive means --encoding jpeg-progressive; it cannot be combined with --encoding \(encoding.rawValue)")
        }
        if encoding.format == .webp && max(width, height) > 16383 {
            throw ValidationError("--encoding \(encoding.rawValue): WebP is at most 16383 pixels a side (got \(width)x\(height))")
        }
        guard (1...100).contains(quality) else {
            throw ValidationError("--quality must be between 1 and 100 (got \(quality))")
        }
    }
}

extension FixtureEncoding: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
