import BenchCore
import Foundation
import Harness
import Imaging
import Probe

/// The URLSession task kinds a scrolling row can cancel: a task's `cancel()` stops its transfer.
/// (The blocking strategies of `bench run` cannot be cancelled midway, so they are not offered.)
package enum ScrollStrategy: String, CaseIterable, Codable, Sendable {
    /// URLSession data task: the body accumulates in memory.
    case data
    /// URLSession download task: the body streams to a temporary file, decoded from the file.
    case download
}

/// Everything the child needs to simulate one scrolling list; passed as JSON on its command line.
package struct ScrollSpec: Codable, Sendable, Equatable, SettlingSpec {
    package var strategy: ScrollStrategy
    package var render: RenderMode
    package var allocator: Allocator = .system
    /// One URL per row, top to bottom.
    package var rowURLs: [URL]
    package var warmupURL: URL?
    package var visibleRows: Int
    /// The window moves one row every 1 / rowsPerSecond seconds, down to the end and back up.
    package var rowsPerSecond: Double
    package var scrollBack = true
    /// Most requests (fetch and decode) in progress at once.
    package var maxConcurrent: Int
    /// Decoded-image cache limit in bytes; 0 turns the cache off.
    package var cacheLimitBytes: Int
    package var maxPixel: Int = 256
    /// Decodes that would allocate more than this many RGBA pixels are refused (the row fails).
    package var maxImagePixels: Int = DecodeBudget.defaultMaxImagePixels
    /// Times a failed request is tried again before the row falls back to a placeholder.
    package var retries = 0
    /// The fault the server acts out on every `faultEvery`-th row (none when nil), on every attempt.
    package var fault: ScrollFault?
    package var faultEvery = 4
    /// RLIMIT_DATA for the child, in bytes (see MemoryBudget), or nil for no limit.
    package var memoryLimitBytes: Int?
    /// TMPDIR of the child; the parent counts what is left in it, then deletes it.
    package var workDirectory: URL
    package var sampleIntervalNanos: UInt64 = 1_000_000
    package var timeoutSeconds: Double = 120
    /// The settle after the scroll (see `SettleRule`): at most `settleNanos`, and over once RSS and
    /// the heap have been flat for `settleQuietNanos` (nil: a fixed pause of `settleNanos`).
    package var settleNanos: UInt64 = SettleRule.defaultMaximumNanos
    package var settleQuietNanos: UInt64? = SettleRule.defaultQuietNanos

    package init(
        strategy: ScrollStrategy,
        render: RenderMode,
        rowURLs: [URL],
        warmupURL: URL?,
        visibleRows: Int,
        rowsPerSecond: Double,
        maxConcurrent: Int,
        cacheLimitBytes: Int,
        workDirectory: URL
    ) {
        self.strategy = strategy
        self.render = render
        self.rowURLs = rowURLs
        self.warmupURL = warmupURL
        self.visibleRows = visibleRows
        self.rowsPerSecond = rowsPerSecond
        self.maxConcurrent = maxConcurrent
        self.cacheLimitBytes = cacheLimitBytes
        self.workDirectory = workDirectory
    }

    /// How long the window moves; the timeout counts from when it stops.
    package var scrollSeconds: Double { Double(windowPath.count) / rowsPerSecond }

    /// The window's top row at each step: 0, 1, ... last, then back to 0 when `scrollBack`.
    package var windowPath: [Int] {
        let last = max(0, rowURLs.count - visibleRows)
        let down = Array(0...last)
        return scrollBack && last > 0 ? down + down.reversed().dropFirst() : down
    }
}
