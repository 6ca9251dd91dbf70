import Foundation

/// How the measured image is turned into pixels, "as if shown on screen": one of the built-in
/// renderers below, or a renderer a user's executable registers (ImageMemoryBench's
/// `ImageRenderer`), named in specs, CSV rows and on the command line by its name.
package struct RenderMode: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package var description: String { rawValue }

    /// Fetch only: nothing is decoded.
    package static let none = RenderMode(rawValue: "none")
    /// Decode the whole image to 8-bit RGBA (4 bytes a pixel) and keep it alive.
    package static let full = RenderMode(rawValue: "full")
    /// The cheapest decode each format allows to a bitmap bounded by a maximum pixel size.
    package static let thumbnail = RenderMode(rawValue: "thumbnail")
    /// Straight to the maximum pixel size while streaming, rows area-averaged as they are decoded: a
    /// JPEG of any scan structure holds one row of coefficients (our own decoder), a PNG a row (Adam7:
    /// an inflate state a pass), lossy WebP libwebp's rows; lossless WebP, HEIC and AVIF their planes.
    package static let stream = RenderMode(rawValue: "stream")
    /// The harness's own renderers, in the order tables list them.
    package static let builtIns: [RenderMode] = [.none, .full, .thumbnail, .stream]

    /// A renderer named in a results file or on a command line: any name a renderer can be
    /// registered under (``CatalogName``); nil for an empty or untypeable one.
    package init?(name: String) {
        guard CatalogName.isUsable(name) else { return nil }
        self.init(rawValue: name)
    }

    /// Built-in renderers first, in their order, then the others by name: the order of tables and charts.
    package static func ordered(_ renders: some Sequence<RenderMode>) -> [RenderMode] {
        let distinct = Set(renders)
        return builtIns.filter(distinct.contains) + distinct.subtracting(builtIns).sorted { $0.rawValue < $1.rawValue }
    }
}

/// The rule for the names of strategies and renderers, built-in or a user's: what can be typed
/// on a command line after `--strategy`/`--render` and stored in a CSV cell unquoted.
package enum CatalogName {
    package static func isUsable(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }
    package static let rule = "letters, digits, '-', '_' or '.'"
}

/// Everything a child needs to run one trial; passed as JSON on its command line.
package struct TrialSpec: Codable, Sendable, Equatable, SettlingSpec {
    package var strategy: String
    package var render: RenderMode
    package var allocator: Allocator
    /// 1-based index of this run within its cell.
    package var run: Int
    package var url: URL
    /// A small resource fetched through the same strategy before the baseline, or nil to skip.
    package var warmupURL: URL?
    /// Folder for downloaded files; the parent deletes it after the child exits.
    package var workDirectory: URL
    package var maxPixel: Int
    /// Decodes that would allocate more than this many RGBA pixels are refused (decode_error).
    package var maxImagePixels: Int = TrialSpec.defaultMaxImagePixels
    /// Imaging's `DecodeBudget.defaultMaxImagePixels` (the core cannot import Imaging; a test keeps them equal).
    package static let defaultMaxImagePixels = 178_956_970
    package var sampleIntervalNanos: UInt64
    package var timeoutSeconds: Double
    /// The settle after the render, still sampled, before the final reading (see `SettleRule`):
    /// frameworks finish work after their completion handler returns (URLSession frees its receive
    /// buffer then), and "final" means the steady state with the image on screen. At most
    /// `settleNanos`; over once RSS and the heap have been flat for `settleQuietNanos` (nil: a
    /// fixed pause of `settleNanos`, as a spec written without it asks).
    package var settleNanos: UInt64 = TrialSpec.defaultSettleNanos
    package static let defaultSettleNanos: UInt64 = SettleRule.defaultMaximumNanos
    package var settleQuietNanos: UInt64? = SettleRule.defaultQuietNanos
    /// `BENCH_SETTLE=fixed` in the parent's environment gives its children the fixed pause instead
    /// of the rule (scripts/overhead.sh measures with it what the rule is checked against).
    package static let settleEnvironmentVariable = "BENCH_SETTLE"
    /// True: the child takes no residency snapshots (no residency.csv rows, no release hook), to
    /// measure what they cost; nil or false: it takes them, as a spec written without it asks.
    package var residencyOff: Bool?
    /// `BENCH_RESIDENCY=off` in the parent's environment turns its children's snapshots off
    /// (scripts/residency-cost.py measures with and without).
    package static let residencyEnvironmentVariable = "BENCH_RESIDENCY"
    /// A tiny image of the measured one's format, decoded during warm-up (nil: a tiny JPEG).
    package var warmUpImage: URL?
    /// 2 kHz: the sampler's target rate.
    package static let defaultSampleIntervalNanos: UInt64 = 500_000
    /// Blocks of at least this many bytes are recorded with their call stacks, to name who holds
    /// the exact heap peak (0: none).
    package var holderThresholdBytes: Int = TrialSpec.defaultHolderThresholdBytes
    package static let defaultHolderThresholdBytes = 64 * 1024
    /// CLOCK_MONOTONIC when the parent spawned the child (system-wide clock), for start-up time.
    package var launchedAtNanos: UInt64?

    package init(
        strategy: String,
        render: RenderMode,
        allocator: Allocator,
        run: Int,
        url: URL,
        warmupURL: URL?,
        workDirectory: URL,
        maxPixel: Int = 1024,
        sampleIntervalNanos: UInt64 = TrialSpec.defaultSampleIntervalNanos,
        timeoutSeconds: Double = 60
    ) {
        self.strategy = strategy
        self.render = render
        self.allocator = allocator
        self.run = run
        self.url = url
        self.warmupURL = warmupURL
        self.workDirectory = workDirectory
        self.maxPixel = maxPixel
        self.sampleIntervalNanos = sampleIntervalNanos
        self.timeoutSeconds = timeoutSeconds
    }
}
