import Foundation

/// How a trial ended. Every run becomes a row, failed ones included.
package enum TrialStatus: String, Codable, Sendable, CaseIterable {
    case ok
    /// The server answered with a non-2xx status.
    case httpError = "http_error"
    /// Connection refused or reset, body cut short, bad URL, ...
    case transportError = "transport_error"
    /// The body is not an image the renderer can decode (any format: JPEG, PNG, WebP, HEIC, AVIF).
    case decodeError = "decode_error"
    /// The child died (signal or exit) without reporting.
    case crashed
    /// The child outlived its time limit and was killed.
    case timeout
    /// The harness could not run the trial (spawn failed, probe unavailable, ...).
    case harnessError = "harness_error"
    /// The file changed between its inspection and its measurement (`bench corpus`): its runs are
    /// not measured, rather than pair one version's header with another's payload.
    case changed
}

/// One point of a run's memory timeline; `seconds` counts from the baseline reading.
package struct TimelinePoint: Codable, Sendable, Equatable {
    package var seconds: Double
    package var residentBytes: Int
    package var allocatedBytes: Int
    /// The file-backed part of `residentBytes` (statm's shared field); nil when not recorded.
    package var fileBytes: Int?

    package init(seconds: Double, residentBytes: Int, allocatedBytes: Int, fileBytes: Int? = nil) {
        self.seconds = seconds
        self.residentBytes = residentBytes
        self.allocatedBytes = allocatedBytes
        self.fileBytes = fileBytes
    }
}

/// The measurements of one run, as reported by the child (or made up by the parent when it failed).
/// Byte counts are nil when the run did not get far enough to measure them.
package struct TrialResult: Codable, Sendable {
    package var strategy: String
    package var render: RenderMode
    package var allocator: Allocator
    package var run: Int
    package var pid: Int32
    package var status: TrialStatus = .ok
    package var error: String = ""

    package var payloadBytes: Int?
    package var baselineRSSBytes: Int?
    /// The largest RSS reading of the measured window: sampled, VmHWM or a residency snapshot's.
    package var peakRSSBytes: Int?
    package var sampledPeakRSSBytes: Int?
    package var hwmPeakRSSBytes: Int?
    package var finalRSSBytes: Int?
    package var baselineAllocatedBytes: Int?
    /// Sampled maximum of the allocator's live bytes over the window.
    package var peakAllocatedBytes: Int?
    package var finalAllocatedBytes: Int?
    /// Exact live heap bytes (the malloc wrappers linked into bench, CHeapPeak) at the baseline and at their highest in the window;
    /// nil when the child ran without the interposer.
    package var baselineHeapExactBytes: Int?
    package var peakHeapExactBytes: Int?
    /// The exact heap maximum over the child's whole life (start-up and warm-up included).
    package var lifetimePeakHeapExactBytes: Int?

    package var fetchSeconds: Double?
    package var renderSeconds: Double?
    /// Fetch plus render: the measured window.
    package var durationSeconds: Double?
    /// Where a run's time goes: spawn to the child's first line of trial code, its warm-up,
    /// and (set by the parent) spawn to exit, report included.
    package var startupSeconds: Double?
    package var warmupSeconds: Double?
    package var wallSeconds: Double?
    /// From the render's end to the final reading (the settle, `SettleRule`), and to the last
    /// reading in it that moved RSS or the heap past the rule's tolerances.
    package var settleSeconds: Double?
    package var settleLastMovementSeconds: Double?
    package var imageWidth: Int?
    package var imageHeight: Int?
    /// Whether the child fetched a warm-up resource before its baseline (false: a cold first request).
    package var warmedUp: Bool?

    /// Sampler fidelity over the window.
    package var samples: Int?
    package var samplerHertz: Double?
    package var maxSampleGapMillis: Double?
    /// CPU time of the sampler thread over its whole life (start to stop), and per sample.
    package var samplerCPUSeconds: Double?
    /// Whether the sampler thread ran with real-time priority (SCHED_FIFO).
    package var samplerRealtime: Bool?

    package var timeline: [TimelinePoint] = []

    /// Who holds the exact heap peak: the recorded blocks live at it as the child reports them
    /// (raw frames; the parent names them and clears this), then named and grouped by stack.
    package var peakBlocks: [PeakBlock]?
    package var holders: [PeakHolder]?
    /// The recording threshold (blocks at least this large are recorded), and blocks the full
    /// table could not record (their bytes are in the small blocks).
    package var holderThresholdBytes: Int?
    package var holdersDropped: Int?
    /// What recording the holders cost inside the measured window: blocks recorded or released,
    /// and the time the wrappers spent on it (a part of `durationSeconds`).
    package var holderEvents: Int?
    package var holderRecordingSeconds: Double?

    /// The least memory the cell's contract needs at once (`FloorParts.of`): computed from the image
    /// and the strategy's and renderer's floor rules, not measured; nil when a rule is undeclared.
    package var floorBytes: Int?
    /// The floor by role (trials.json only; nil in rows read from trials.csv).
    package var floorParts: FloorParts?
    /// RSS at the RSS peak and at the window's end broken into categories (residency.csv), each a
    /// delta over the baseline; nil when the child took no residency snapshots.
    package var residency: [ResidencyRow]?
    /// The residency snapshots taken (baseline and end included) and the time they took, on the
    /// sampler thread and the trial's own.
    package var residencySnapshots: Int?
    package var residencySeconds: Double?
    /// The part of `residencySeconds` taken on the trial's own threads inside the measured window
    /// (snapshots as a large block is freed, and the RSS readings deciding on them): what the
    /// attribution adds to `durationSeconds`.
    package var residencyInWindowSeconds: Double?

    package init(spec: TrialSpec, pid: Int32) {
        self.init(
            cell: TrialCell(strategy: spec.strategy, render: spec.render, allocator: spec.allocator),
            run: spec.run,
            pid: pid
        )
    }

    /// A row with its key and nothing measured yet: what a result file's reader fills in, and a
    /// test's row. A trial the harness runs starts from its `TrialSpec` instead.
    package init(cell: TrialCell, run: Int, pid: Int32) {
        strategy = cell.strategy
        render = cell.render
        allocator = cell.allocator
        self.run = run
        self.pid = pid
    }

    package var peakRSSDeltaBytes: Int? {
        guard let peakRSSBytes, let baselineRSSBytes else { return nil }
        return peakRSSBytes - baselineRSSBytes
    }

    package var finalRSSDeltaBytes: Int? {
        guard let finalRSSBytes, let baselineRSSBytes else { return nil }
        return finalRSSBytes - baselineRSSBytes
    }

    package var peakAllocatedDeltaBytes: Int? {
        guard let peakAllocatedBytes, let baselineAllocatedBytes else { return nil }
        return peakAllocatedBytes - baselineAllocatedBytes
    }

    package var peakHeapExactDeltaBytes: Int? {
        guard let peakHeapExactBytes, let baselineHeapExactBytes else { return nil }
        return peakHeapExactBytes - baselineHeapExactBytes
    }

    package var isSuccess: Bool { status == .ok }
}

extension TrialResult {
    /// The cell this run belongs to: runs of the same cell are compared with each other.
    package var cell: TrialCell { TrialCell(strategy: strategy, render: render, allocator: allocator) }
}

/// One combination of the matrix: strategy x renderer x allocator.
package struct TrialCell: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
    package var strategy: String
    package var render: RenderMode
    package var allocator: Allocator

    package init(strategy: String, render: RenderMode, allocator: Allocator) {
        self.strategy = strategy
        self.render = render
        self.allocator = allocator
    }

    package var description: String { "\(strategy)+\(render.rawValue) [\(allocator.rawValue)]" }

    package static func < (lhs: TrialCell, rhs: TrialCell) -> Bool {
        (lhs.strategy, lhs.render.rawValue, lhs.allocator.rawValue)
            < (rhs.strategy, rhs.render.rawValue, rhs.allocator.rawValue)
    }
}
