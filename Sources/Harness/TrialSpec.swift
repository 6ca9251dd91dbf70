import Foundation
import Imaging
import Probe

/// How the measured image is turned into pixels, "as if shown on screen".
public enum RenderMode: String, CaseIterable, Codable, Sendable {
    /// Fetch only: nothing is decoded.
    case none
    /// Decode the whole image to 8-bit RGBA (4 bytes a pixel) and keep it alive.
    case full
    /// DCT-scaled decode bounded by a maximum pixel size; never allocates the full bitmap.
    case thumbnail
}

/// Everything a child needs to run one trial; passed as JSON on its command line.
public struct TrialSpec: Codable, Sendable, Equatable {
    public var strategy: String
    public var render: RenderMode
    public var allocator: Allocator
    /// 1-based index of this run within its cell.
    public var run: Int
    public var url: URL
    /// A small resource fetched through the same strategy before the baseline, or nil to skip.
    public var warmupURL: URL?
    /// Folder for downloaded files; the parent deletes it after the child exits.
    public var workDirectory: URL
    public var maxPixel: Int
    /// Decodes that would allocate more than this many RGBA pixels are refused (decode_error).
    public var maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels
    public var sampleIntervalNanos: UInt64
    public var timeoutSeconds: Double
    /// Pause after the render, still sampled, before the final reading: frameworks finish work
    /// after their completion handler returns (URLSession frees its receive buffer then), and
    /// "final" means the steady state with the image on screen.
    public var settleNanos: UInt64 = TrialSpec.defaultSettleNanos
    public static let defaultSettleNanos: UInt64 = 50_000_000
    /// A tiny image of the measured one's format, decoded during warm-up (nil: a tiny JPEG).
    public var warmUpImage: URL?
    /// CLOCK_MONOTONIC when the parent spawned the child (system-wide clock), for start-up time.
    public var launchedAtNanos: UInt64?

    public init(strategy: String, render: RenderMode, allocator: Allocator, run: Int, url: URL,
                warmupURL: URL?, workDirectory: URL, maxPixel: Int = 1024,
                sampleIntervalNanos: UInt64 = 500_000, timeoutSeconds: Double = 60) {
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
