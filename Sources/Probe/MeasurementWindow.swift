import BenchCore

#if canImport(Glibc)
import Glibc
#endif

/// The measured window of a child, trial or scenario alike: opened after the warm-up (sampler
/// running, VmHWM and the exact heap peak reset, baseline read), closed once the work is done and
/// RSS and the heap have settled by a `SettleRule` (final reading, peaks read, sampler stopped).
/// The peaks are computed here, one way for everyone.
package final class MeasurementWindow {
    package let baseline: MemorySample
    /// The exact heap's live bytes at the baseline; nil when the exact counting is off.
    package let exactBaseline: Int?
    private let sampler: MemorySampler
    private let exactHeap: ExactHeapPeak?
    /// The residency snapshot at the baseline (nil without a residency probe), and its time.
    private let baselineResidency: ResidencySnapshot?
    private let baselineResidencyNanos: UInt64

    /// Opens the window: starts the sampler, resets VmHWM and the exact heap peak, reads the baseline.
    /// With `residency`, the sampler takes residency snapshots (see `MemorySampler`) and one is
    /// taken at the baseline and one at the end.
    package init(
        heap: HeapCounters,
        exactHeap: ExactHeapPeak?,
        intervalNanos: UInt64,
        maximumDurationSeconds: Double,
        residency: ResidencyProbe? = nil
    ) throws {
        let sampler = try MemorySampler(
            heap: heap,
            exactHeap: exactHeap,
            intervalNanos: intervalNanos,
            maximumDurationSeconds: maximumDurationSeconds,
            residency: residency
        )
        try sampler.start()
        do {
            try ProcessMemory.resetPeakResident()
        } catch {
            _ = sampler.stop()
            throw error
        }
        self.sampler = sampler
        self.exactHeap = exactHeap
        self.exactBaseline = exactHeap?.reset()
        // The baseline snapshot just before the baseline reading, so that neither its time nor
        // what a thread's first snapshot brings into RSS (under jemalloc about 300 KiB, the
        // allocator's state for reading) is the window's.
        let started = MonotonicClock.now()
        self.baselineResidency = residency?.snapshot(keep: false)
        self.baselineResidencyNanos = MonotonicClock.now() - started
        self.baseline = sampler.sampleNow()
        sampler.residencyRestart(baselineResidentBytes: baseline.residentBytes)
    }

    package var isRealtime: Bool { sampler.isRealtime }

    /// Ends the window without readings (the measured work failed).
    package func abandon() {
        _ = sampler.stop()
    }

    /// Waits from `workEnded` until `rule` is met by the sampler's readings (each look at them, one
    /// sampler interval apart, is one of the rule's turns), then takes the final
    /// reading, freezes the exact heap peak, reads the peaks and stops the sampler.
    package func close(workEnded: UInt64, settle rule: SettleRule) -> WindowReadings {
        var detector = SettleDetector(rule: rule, start: workEnded)
        var next = 0
        var settled = false
        while !settled {
            next = sampler.forEachSample(from: next) { sample in
                if !settled {
                    settled = detector.observe(
                        time: sample.time,
                        residentBytes: sample.residentBytes,
                        heapBytes: sample.allocatedBytes
                    )
                }
            }
            if settled { break }
            detector.turn()
            if MonotonicClock.now() >= workEnded &+ rule.maximumNanos { break }
            Self.sleep(nanos: min(sampler.intervalNanos, workEnded &+ rule.maximumNanos &- MonotonicClock.now()))
        }
        let final = sampler.sampleNow()
        let end = sampler.residencyAtEnd()
        exactHeap?.freeze()  // the window is closed: what the caller reads next must not move the peak
        let exactPeak = exactHeap?.read().peak
        let hwm = ProcessMemory.peakResidentBytes()
        let recording = sampler.stop()
        var readings = WindowReadings(
            baseline: baseline,
            final: final,
            exactBaseline: exactBaseline,
            exactPeak: exactPeak,
            hwmPeakResidentBytes: hwm,
            recording: recording,
            statistics: recording.statistics(from: baseline.time, to: final.time),
            settleNanos: final.time &- workEnded,
            lastMovementNanos: detector.lastMovement &- workEnded
        )
        if let baselineResidency, let end, let peak = recording.residencyPeak {
            readings.residency = ResidencyReadings(
                baselineResidentBytes: baseline.residentBytes,
                baseline: baselineResidency,
                peak: peak,
                end: end,
                snapshots: recording.residencySnapshots + 1,
                nanos: recording.residencyNanos + baselineResidencyNanos,
                releaseNanos: recording.residencyReleaseNanos
            )
        }
        return readings
    }

    private static func sleep(nanos: UInt64) {
        var wait = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&wait, &remaining) != 0 && errno == EINTR { wait = remaining }
    }
}

/// What a closed window read: the baseline, the final reading and the peaks between them.
package struct WindowReadings: Sendable {
    package var baseline: MemorySample
    package var final: MemorySample
    package var exactBaseline: Int?
    /// The exact heap's maximum since the baseline; nil when the exact counting is off.
    package var exactPeak: Int?
    package var hwmPeakResidentBytes: Int?
    package var recording: SamplerRecording
    package var statistics: SamplerStatistics
    /// From the end of the work to the final reading.
    package var settleNanos: UInt64
    /// From the end of the work to the last reading that moved past the settle rule's tolerances.
    package var lastMovementNanos: UInt64
    /// The residency snapshots at the baseline, the RSS peak and the end; nil without a probe.
    package var residency: ResidencyReadings?

    package init(
        baseline: MemorySample,
        final: MemorySample,
        exactBaseline: Int? = nil,
        exactPeak: Int? = nil,
        hwmPeakResidentBytes: Int? = nil,
        recording: SamplerRecording,
        statistics: SamplerStatistics,
        settleNanos: UInt64,
        lastMovementNanos: UInt64,
        residency: ResidencyReadings? = nil
    ) {
        self.baseline = baseline
        self.final = final
        self.exactBaseline = exactBaseline
        self.exactPeak = exactPeak
        self.hwmPeakResidentBytes = hwmPeakResidentBytes
        self.recording = recording
        self.statistics = statistics
        self.settleNanos = settleNanos
        self.lastMovementNanos = lastMovementNanos
        self.residency = residency
    }

    /// The sampled RSS maximum, the window's edges included.
    package var sampledPeakResidentBytes: Int {
        max(statistics.maxResidentBytes, baseline.residentBytes, final.residentBytes)
    }

    /// Peak RSS: the largest of the sampled maximum, VmHWM (which also sees a peak that came and went
    /// between two samples) and the residency snapshots' own RSS readings. The kernel's RSS counters
    /// are per-CPU and read approximately, so two readings of one state can differ by a few pages;
    /// taking every reading into the peak keeps a snapshot from ever lying above it.
    package var peakResidentBytes: Int {
        max(
            sampledPeakResidentBytes,
            hwmPeakResidentBytes ?? 0,
            residency?.peak.residentBytes ?? 0,
            residency?.end.residentBytes ?? 0
        )
    }

    /// The sampled heap maximum (the counters the sampler reads), the window's edges included.
    package var sampledPeakHeapBytes: Int {
        max(statistics.maxAllocatedBytes, baseline.allocatedBytes, final.allocatedBytes)
    }

    /// The heap's peak: exact when counted, else sampled.
    package var peakHeapBytes: Int { exactPeak ?? sampledPeakHeapBytes }

    /// The samples of the window, time measured from the baseline.
    package var timeline: [TimelinePoint] {
        recording.window(from: baseline.time, to: final.time).map {
            TimelinePoint(
                seconds: Double($0.time - baseline.time) / 1e9,
                residentBytes: $0.residentBytes,
                allocatedBytes: $0.allocatedBytes,
                fileBytes: $0.fileBytes
            )
        }
    }
}

/// The residency snapshots of a window, and what taking all of them cost.
package struct ResidencyReadings: Sendable {
    /// The window's baseline RSS, the one trials.csv's deltas are taken over: each moment's RSS
    /// delta is over it too, so a moment's rows add up to the same delta the peak is reported as.
    package var baselineResidentBytes: Int
    package var baseline: ResidencySnapshot
    package var peak: ResidencySnapshot
    package var end: ResidencySnapshot
    package var snapshots: Int
    package var nanos: UInt64
    /// The part of `nanos` (and the RSS readings deciding on a snapshot) that the release hook took
    /// on the measured threads inside the window: what the attribution adds to the window.
    package var releaseNanos: UInt64

    package init(
        baselineResidentBytes: Int,
        baseline: ResidencySnapshot,
        peak: ResidencySnapshot,
        end: ResidencySnapshot,
        snapshots: Int,
        nanos: UInt64,
        releaseNanos: UInt64
    ) {
        self.baselineResidentBytes = baselineResidentBytes
        self.baseline = baseline
        self.peak = peak
        self.end = end
        self.snapshots = snapshots
        self.nanos = nanos
        self.releaseNanos = releaseNanos
    }

    /// residency.csv's rows: at the RSS peak's snapshot and at the end, each category's delta over the
    /// baseline snapshot; `unattributed` takes the rest of the RSS delta over the window's baseline.
    package var rows: [ResidencyRow] {
        func rows(_ moment: ResidencyMoment, _ snapshot: ResidencySnapshot) -> [ResidencyRow] {
            ResidencyRow.rows(
                moment: moment,
                rssDelta: snapshot.residentBytes - baselineResidentBytes,
                deltas: snapshot.deltas(over: baseline)
            )
        }
        return rows(.rssPeak, peak) + rows(.end, end)
    }
}
