import ArgumentParser
import Foundation
import Imaging

/// The parameters of the generated test image, shared by run, fixture and serve.
///
/// Each is optional, nil when not given, so that `run --url` can refuse any that is given (the URL's
/// image is measured, not the fixture): `givenNames` lists them.
struct FixtureOptions: ParsableArguments {
    @Option(name: .customLong("width"), help: "Fixture width in pixels. (default: \(FixtureSpec.article.width))")
    var givenWidth: Int?

    @Option(name: .customLong("height"), help: "Fixture height in pixels. (default: \(FixtureSpec.article.height))")
    var givenHeight: Int?

    @Option(
        name: .customLong("quality"),
        help: "JPEG quality of the fixture, 1-100. (default: \(FixtureSpec.article.quality))"
    )
    var givenQuality: Int?

    @Option(
        name: .customLong("encoding"),
        help: "How the fixture is encoded: \(FixtureEncoding.names). (default: \(FixtureEncoding.jpeg.rawValue))"
    )
    var givenEncoding: FixtureEncoding?

    @Flag(help: "Same as --encoding jpeg-progressive.")
    var progressive = false

    @Option(
        name: .customLong("seed"),
        help: "Seed of the fixture's pixel generator: same seed, same bytes. (default: \(FixtureSpec.article.seed))"
    )
    var givenSeed: UInt64?

    @OptionGroup var cache: FixtureCacheOption

    var fixtureCache: String? { cache.fixtureCache }

    var width: Int { givenWidth ?? FixtureSpec.article.width }
    var height: Int { givenHeight ?? FixtureSpec.article.height }
    var quality: Int { givenQuality ?? FixtureSpec.article.quality }
    var encoding: FixtureEncoding { givenEncoding ?? .jpeg }
    var seed: UInt64 { givenSeed ?? FixtureSpec.article.seed }

    /// The options given on the command line, as typed (`--width`, `--progressive`, ...).
    var givenNames: [String] {
        [
            ("--width", givenWidth != nil), ("--height", givenHeight != nil), ("--quality", givenQuality != nil),
            ("--encoding", givenEncoding != nil), ("--progressive", progressive), ("--seed", givenSeed != nil),
            ("--fixture-cache", fixtureCache != nil),
        ].filter(\.1).map(\.0)
    }

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
            throw ValidationError(
                "--progressive means --encoding jpeg-progressive; it cannot be combined with --encoding \(encoding.rawValue)"
            )
        }
        if encoding.format == .webp && max(width, height) > 16383 {
            throw ValidationError(
                "--encoding \(encoding.rawValue): WebP is at most 16383 pixels a side (got \(width)x\(height))"
            )
        }
        guard (1...100).contains(quality) else {
            throw ValidationError("--quality must be between 1 and 100 (got \(quality))")
        }
    }
}

extension FixtureEncoding: ExpressibleByArgument {
    package init?(argument: String) { self.init(rawValue: argument) }
    package static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
