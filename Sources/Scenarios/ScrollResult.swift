import BenchCore
import Foundation

/// One scenario run: what the child measured, plus what the parent's server counted.
package struct ScrollResult: Codable, Sendable {
    package var spec: ScrollSpec
    /// The same vocabulary as a trial's row (`TrialStatus`): ok, crashed, timeout, harness_error.
    package var status = TrialStatus.ok
    package var error = ""
    package var pid: Int32 = 0

    // Measured in the child, over its warmed-up baseline; nil when it left no report (not measured),
    // peak RSS excepted when the kernel still gave the killed child's high-water mark.
    package var baselineRSSBytes: Int?
    package var peakRSSBytes: Int?
    package var finalRSSBytes: Int?
    package var baselineHeapBytes: Int?
    /// Exact live-heap maximum from the linked malloc wrappers (CHeapPeak), or the sampled allocator counter without it.
    package var peakHeapBytes: Int?
    package var finalHeapBytes: Int?
    package var durationSeconds: Double?

    package var requestsStarted: Int?
    package var requestsCompleted: Int?
    package var requestsCancelled: Int?
    /// Requests that failed after their last retry, and the retries made.
    package var requestsFailed: Int?
    package var requestsRetried: Int?
    /// Rows that showed a placeholder because their request failed.
    package var rowsFallback: Int?
    /// Body bytes of the requests that finished their transfer.
    package var bytesDelivered: Int?
    /// Partial downloads of cancelled tasks left in TMPDIR by FoundationNetworking, which the loader removed.
    package var orphanedFilesRemoved: Int?
    /// Rows that entered the window, and those that got their image while visible.
    package var rowsEntered: Int?
    package var rowsShown: Int?
    package var cacheHits: Int?
    package var cacheEvictions: Int?
    package var cacheFinalBytes: Int?
    /// Time from a row entering the window to its image being ready, over rows shown.
    package var timeToImageMedianMillis: Double?
    package var timeToImageMaxMillis: Double?

    // Counted by the parent.
    /// Body bytes the server sent during the scroll (warm-up excluded).
    package var bytesSent = 0
    package var serverRequests = 0
    /// Sum of the payloads of every row: what a list without cancellation would fetch once.
    package var payloadBytesAllRows = 0
    /// Files left in the child's TMPDIR / work folder when it exited.
    package var leftoverFiles = 0

    // Settings of the parent's that the child never sees (list-scroll.csv records them on every row).
    /// The embedded server's throttle on each response, bytes a second; nil when unthrottled.
    package var bandwidthBytesPerSecond: Int?
    /// The fixtures the rows cycle over, WIDTHxHEIGHT in row order.
    package var fixtureSizes: [String] = []
    /// The bitmaps of the rows on screen at once, the largest such window (`ScrollFloor`); nil
    /// for a renderer without a bitmap rule.
    package var floorBytes: Int?

    /// Bytes that crossed the wire but never became an image: cancelled transfers. nil when the
    /// child did not count what it received.
    package var bytesWasted: Int? { bytesDelivered.map { max(0, bytesSent - $0) } }

    package init(spec: ScrollSpec) { self.spec = spec }
}
