import Foundation

/// How a trial ended. Every run becomes a row, failed ones included.
public enum TrialStatus: String, Codable, Sendable, CaseIterable {
    case ok
    /// The server answered with a non-2xx status.
    case httpError = "http_error"
    /// Connection refused or reset, body cut short, bad URL, ...
    case transportError = "transport_error"
    /// The body is not a decodable JPEG.
    case decodeError = "decode_error"
    /// The child died (signal or exit) without reporting.
    case crashed
    /// The child outlived its time limit and was killed.
    case timeout
    /// The harness could not run the trial (spawn failed, probe unavailable, ...).
    case harnessError = "harness_error"
}

/// One point of a run's memory timeline; `seconds` counts from the baseline reading.
public struct TimelinePoint: Codable, Sendable, Equatable {
    public var seconds: Double
    public var residentBytes: Int
    public var allocatedBytes: Int

    public init(seconds: Double, residentBytes: Int, allocatedBytes: Int) {
        self.seconds = seconds
        self.residentBytes = residentBytes
        self.allocatedBytes = allocatedBytes
    }
}

/// The measurements of one run, as reported by the child (or made up by the parent when it failed).
/// Byte counts are nil when the run did not get far enough to measure them.
public struct TrialResult: Codable, Sendable {
    public var strategy: String
    public var render: RenderMode
    public var allocator: Allocator
    public var run: Int
    public var pid: Int32
    public var status: TrialStatus = .ok
    public var error: String = ""

    public var payloadBytes: Int?
    public var baselineRSSBytes: Int?
    /// max(sampled maximum, VmHWM) over the measured window.
    public var peakRSSBytes: Int?
    public var sampledPeakRSSBytes: Int?
    public var hwmPeakRSSBytes: Int?
    public var finalRSSBytes: Int?
    public var baselineAllocatedBytes: Int?
    /// Sampled maximum of the allocator's live bytes over the window.
    public var peakAllocatedBytes: Int?
    public var finalAllocatedBytes: Int?
    /// Exact live heap bytes (the malloc wrappers linked into bench, CHeapPeak) at the baseline and at their highest in the window;
    /// nil when the child ran without the interposer.
    public var baselineHeapExactBytes: Int?
    public var peakHeapExactBytes: Int?
    /// The exact heap maximum over the child's whole life (start-up and warm-up included).
    public var lifetimePeakHeapExactBytes: Int?

    public var fetchSeconds: Double?
    public var renderSeconds: Double?
    /// Fetch plus render: the measured window.
    public var durationSeconds: Double?
    /// Where a run's time goes: spawn to the child's first line of trial code, its warm-up,
    /// and (set by the parent) spawn to exit, report included.
    public var startupSeconds: Double?
    public var warmupSeconds: Double?
    public var wallSeconds: Double?
    /// From the render's end to the final reading (the settle, `SettleRule`), and to the last
    /// reading in it that moved RSS or the heap past the rule's tolerances.
    public var settleSeconds: Double?
    public var settleLastMovementSeconds: Double?
    public var imageWidth: Int?
    public var imageHeight: Int?
    /// Whether the child fetched a warm-up resource before its baseline (false: a cold first request).
    public var warmedUp: Bool?

    /// Sampler fidelity over the window.
    public var samples: Int?
    public var samplerHertz: Double?
    public var maxSampleGapMillis: Double?
    /// CPU time of the sampler thread over its whole life (start to stop), and per sample.
    public var samplerCPUSeconds: Double?
    /// Whether the sampler thread ran with real-time priority (SCHED_FIFO).
    public var samplerRealtime: Bool?

    public var timeline: [TimelinePoint] = []

    /// Who holds the exact heap peak: the recorded blocks live at it as the child reports them
    /// (raw frames; the parent names them and clears this), then named and grouped by stack.
    public var peakBlocks: [PeakBlock]?
    public var holders: [PeakHolder]?
    /// The recording threshold (blocks at least this large are recorded), and blocks the full
    /// table could not record (their bytes are in the small blocks).
    public var holderThresholdBytes: Int?
    public var holdersDropped: Int?
    /// What recording the holders cost inside the measured window: blocks recorded or released,
    /// and the time the wrappers spent on it (a part of `durationSeconds`).
    public var holderEvents: Int?
    public var holderRecordingSeconds: Double?

    public init(spec: TrialSpec, pid: Int32) {
        strategy = spec.strategy
        render = spec.render
        allocator = spec.allocator
        run = spec.run
        self.pid = pid
    }

    public var peakRSSDeltaBytes: Int? {
        guard let peakRSSBytes, let baselineRSSBytes else { return nil }
        return peakRSSBytes - baselineRSSBytes
    }

    public var finalRSSDeltaBytes: Int? {
        guard let finalRSSBytes, let baselineRSSBytes else { return nil }
        return finalRSSBytes - baselineRSSBytes
    }

    public var peakAllocatedDeltaBytes: Int? {
        guard let peakAllocatedBytes, let baselineAllocatedBytes else { return nil }
        return peakAllocatedBytes - baselineAllocatedBytes
    }

    public var peakHeapExactDeltaBytes: Int? {
        guard let peakHeapExactBytes, let baselineHeapExactBytes else { return nil }
        return peakHeapExactBytes - baselineHeapExactBytes
    }

    public var isSuccess: Bool { status == .ok }
}

extension TrialResult {
    /// The cell this run belongs to: runs of the same cell are compared with each other.
    public var cell: TrialCell { TrialCell(strategy: strategy, render: render, allocator: allocator) }
}

/// One combination of the matrix: strategy x renderer x allocator.
public struct TrialCell: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
    public var strategy: String
    public var render: RenderMode
    public var allocator: Allocator

    public init(strategy: String, render: RenderMode, allocator: Allocator) {
        self.strategy = strategy
        self.render = render
        self.allocator = allocator
    }

    public var description: String { "\(strategy)+\(render.rawValue) [\(allocator.rawValue)]" }

    public static func < (lhs: TrialCell, rhs: TrialCell) -> Bool {
        (lhs.strategy, lhs.render.rawValue, lhs.allocator.rawValue)
            < (rhs.strategy, rhs.render.rawValue, rhs.allocator.rawValue)
    }
}
