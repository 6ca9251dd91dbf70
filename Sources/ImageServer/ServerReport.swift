import BenchCore

/// What the image server's child measured over its window (from the parent's `GET /_bench/window`
/// to SIGINT), reported on fd 3 as a trial's report is.
package struct ServerReport: Codable, Sendable {
    package var pid: Int32 = 0
    /// ok, or harness_error with `error` (the server could not start, the window never opened).
    package var status = TrialStatus.ok
    package var error = ""
    /// Connections to one host the built-in URLSession strategies' shared session allowed.
    package var clientConnectionsPerHost: Int?

    package var baselineRSSBytes: Int?
    package var peakRSSBytes: Int?
    package var finalRSSBytes: Int?
    /// The live heap at the window's start: the exact one when counted, else the allocator's counter.
    package var baselineHeapBytes: Int?
    /// The heap's maximum in the window: exact (every malloc and free) when counted.
    package var peakHeapBytes: Int?
    package var heapIsExact = false
    package var finalHeapBytes: Int?
    package var windowSeconds: Double?

    /// From the first image request's arrival to the last one's end in the window.
    package var busySeconds: Double?
    /// The most requests in flight at once in the window (in the route: received, not yet answered).
    package var maxInFlight = 0
    /// The stages when the live heap was highest, read with it every sampler interval.
    package var stagesAtHeapPeak = StageCounts()
    /// Each stage's own maximum in the window (not at one moment).
    package var stageMaxima = StageCounts()
    /// Image requests the server answered in the window, and those it answered with an error.
    package var requestsAnswered = 0
    package var requestsFailed = 0
    /// The blocks of at least `ServerSpec.holderThresholdBytes` live at the exact heap peak, with
    /// their stacks (named in the parent), and those the full table could not record.
    package var peakBlocks: [PeakBlock]?
    package var holdersDropped: Int?
    /// RSS broken into categories at the window's RSS peak and at its end, over the baseline (as a
    /// trial's residency.csv); nil with residency off. The snapshots taken, and their time.
    package var residency: [ResidencyRow]?
    package var residencySnapshots: Int?
    package var residencySeconds: Double?

    /// What the admission gate did (`--memory-budget`, `--workers`); nil without one.
    package var admission: AdmissionStatistics?
    /// Requests answered 413 before their body was held: the header's pixels over `--max-image-pixels`.
    package var rejectedTooManyPixels = 0
    /// Requests that held more than their reservation (the cost recomputed from what they received),
    /// and the first of them by name with both costs.
    package var overruns = 0
    package var overrunNames: [String] = []

    package init() {}
}
