import BenchCore
import Foundation

/// One scenario run: what the child measured, plus what the parent's server counted.
public struct ScrollResult: Codable, Sendable {
    public var spec: ScrollSpec
    /// The same vocabulary as a trial's row (`TrialStatus`): ok, crashed, timeout, harness_error.
    public var status = TrialStatus.ok
    public var error = ""
    public var pid: Int32 = 0

    // Measured in the child, over its warmed-up baseline.
    public var baselineRSSBytes = 0
    public var peakRSSBytes = 0
    public var finalRSSBytes = 0
    public var baselineHeapBytes = 0
    /// Exact live-heap maximum from the linked malloc wrappers (CHeapPeak), or the sampled allocator counter without it.
    public var peakHeapBytes = 0
    public var finalHeapBytes = 0
    public var durationSeconds = 0.0

    public var requestsStarted = 0
    public var requestsCompleted = 0
    public var requestsCancelled = 0
    /// Requests that failed after their last retry, and the retries made.
    public var requestsFailed = 0
    public var requestsRetried = 0
    /// Rows that showed a placeholder because their request failed.
    public var rowsFallback = 0
    /// Body bytes of the requests that finished their transfer.
    public var bytesDelivered = 0
    /// Partial downloads of cancelled tasks left in TMPDIR by FoundationNetworking, which the loader removed.
    public var orphanedFilesRemoved = 0
    /// Rows that entered the window, and those that got their image while visible.
    public var rowsEntered = 0
    public var rowsShown = 0
    public var cacheHits = 0
    public var cacheEvictions = 0
    public var cacheFinalBytes = 0
    /// Time from a row entering the window to its image being ready, over rows shown.
    public var timeToImageMedianMillis: Double?
    public var timeToImageMaxMillis: Double?

    // Counted by the parent.
    /// Body bytes the server sent during the scroll (warm-up excluded).
    public var bytesSent = 0
    public var serverRequests = 0
    /// Sum of the payloads of every row: what a list without cancellation would fetch once.
    public var payloadBytesAllRows = 0
    /// Files left in the child's TMPDIR / work folder when it exited.
    public var leftoverFiles = 0

    // Settings of the parent's that the child never sees (scenario.csv records them on every row).
    /// The embedded server's throttle on each response, bytes a second; nil when unthrottled.
    public var bandwidthBytesPerSecond: Int?
    /// The fixtures the rows cycle over, WIDTHxHEIGHT in row order.
    public var fixtureSizes: [String] = []

    /// Bytes that crossed the wire but never became an image: cancelled transfers.
    public var bytesWasted: Int { max(0, bytesSent - bytesDelivered) }

    public init(spec: ScrollSpec) { self.spec = spec }
}
