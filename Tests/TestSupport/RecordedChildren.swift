import BenchCore
import Foundation
import Harness

/// Stands in for the measured children where a test checks the parent's logic (plans, resume,
/// shards, stops, folders, rows): each trial's row is a child's report as recorded, under the
/// trial's own key, and no process starts. The recording is the reference's download+none [system]
/// run 1 (results/trials.csv, 2026-12-02), copied here so that re-measuring the reference cannot move
/// these tests. What needs a real child (the report on fd 3, crashes, timeouts, the environment) is
/// tested with real ones (CommandTests, HarnessTests).
package struct RecordedChildren: TrialLauncher {
    package init() {}

    package func launch(_ spec: TrialSpec) -> TrialResult {
        var result = Self.recorded(TrialResult(spec: spec, pid: 23_722 + Int32(spec.run)))
        result.holderThresholdBytes = spec.holderThresholdBytes  // echoed, as a child does
        return result
    }

    /// `runs` rows of the recorded cell, download+none [system], as a run's trials.csv holds them.
    package static func trials(runs: Int) -> [TrialResult] {
        let cell = TrialCell(strategy: "download", render: .none, allocator: .system)
        return (1...runs).map { recorded(TrialResult(cell: cell, run: $0, pid: 23_722 + Int32($0))) }
    }

    /// `result` (its cell, run and pid) with the recorded child's figures.
    package static func recorded(_ result: TrialResult) -> TrialResult {
        var result = result
        result.payloadBytes = 13_108_402
        result.baselineRSSBytes = 49_901_568
        result.peakRSSBytes = 50_221_056
        result.sampledPeakRSSBytes = 50_221_056
        result.hwmPeakRSSBytes = 50_221_056
        result.finalRSSBytes = 50_221_056
        result.baselineAllocatedBytes = 371_688
        result.peakAllocatedBytes = 660_408
        result.finalAllocatedBytes = 430_960
        result.baselineHeapExactBytes = 379_888
        result.peakHeapExactBytes = 668_832
        result.fetchSeconds = 0.041639
        result.renderSeconds = 0.000007
        result.durationSeconds = 0.041646
        result.startupSeconds = 0.036197
        result.warmupSeconds = 0.015407
        result.wallSeconds = 0.115882
        result.settleSeconds = 0.011554
        result.samples = 105
        result.samplerHertz = 1974
        result.maxSampleGapMillis = 1.263
        result.samplerCPUSeconds = 0.005439
        result.samplerRealtime = true
        result.warmedUp = true
        result.floorBytes = 65_536
        result.timeline = [
            TimelinePoint(seconds: 0, residentBytes: 49_901_568, allocatedBytes: 371_688, fileBytes: 20_000_768),
            TimelinePoint(seconds: 0.02, residentBytes: 50_221_056, allocatedBytes: 660_408, fileBytes: 20_000_768),
            TimelinePoint(seconds: 0.05, residentBytes: 50_221_056, allocatedBytes: 430_960, fileBytes: 20_000_768),
        ]
        return result
    }
}
