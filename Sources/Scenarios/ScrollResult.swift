import BenchCore
import Foundation

/// One scenario run: what the child measured, plus what the parent's server counted.
package struct ScrollResult: Codable, Sendable {
    package var spec: ScrollSpec
    /// The same vocabulary as a trial's row (`TrialStatus`): ok, crashed, timeout, harness_error.
    package var status = TrialStatus.ok
    package var error = ""
    package var pid: Int32 = 0

    // Measured in the child, over its warmed-up baseline.
    package var baselineRSSBytes = 0
    package var peakRSSBytes = 0
    package var finalRSSBytes = 0
    package var baselineHeapBytes = 0
    /// Exact live-heap maximum from the linked malloc wrappers (CHeapPeak), or the sampled allocator counter without it.
    package var peakHeapBytes = 0
    package var finalHeapBytes = 0
    package var durationSeconds = 0.0

    package var requestsStarted = 0
    package var requestsCompleted = 0
    package var requestsCancelled = 0
    /// Requests that failed after their last retry, and the retries made.
    package var requestsFailed = 0
    package var requestsRetried = 0
    /// Rows that showed a placeholder because their request failed.
    package var rowsFallback = 0
    /// Body bytes of the requests that finished their transfer.
    package var bytesDelivered = 0
    /// Partial downloads of cancelled tasks left in TMPDIR by FoundationNetworking, which the loader removed.
    package var orphanedFilesRemoved = 0
    /// Rows that entered the window, and those that got their image while visible.
    package var rowsEntered = 0
    package var rowsShown = 0
    package var cacheHits = 0
    package var cacheEvictions = 0
    package var cacheFinalBytes = 0
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

    // Settings of the parent's that the child never sees (scenario.csv records them on every row).
    /// The embedded server's throttle on each response, bytes a second; nil when unthrottled.
    package var bandwidthBytesPerSecond: Int?
    /// The fixtures the rows cycle over, WIDTHxHEIGHT in row order.
    package var fixtureSizes: [String] = []
    /// The bitmaps of the rows on screen at once, the largest such window (`ScrollFloor`); nil
    /// for a renderer without a bitmap rule.
    package var floorBytes: Int?

    /// Bytes that crossed the wire but never became an image: cancelled transfers.
    package var bytesWasted: Int { max(0, bytesSent - bytesDelivered) }

    package init(spec: ScrollSpec) { self.spec = spec }
}
