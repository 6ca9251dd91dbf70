extension TrialResult {
    /// The first figure no run can have, named by its trials.csv column: a negative byte count or
    /// size, a time or rate that is negative or not finite, or (in a successful run) a peak RSS below
    /// its own baseline. nil when every figure is possible. A file that is not a run's (a corpus.csv,
    /// a hand-edited export) would otherwise be charted and gated as negative or NaN figures.
    package var impossibleFigure: String? {
        let counts: [(column: String, value: Int?)] = [
            ("payload_bytes", payloadBytes), ("baseline_rss_bytes", baselineRSSBytes), ("peak_rss_bytes", peakRSSBytes),
            ("sampled_peak_rss_bytes", sampledPeakRSSBytes), ("hwm_peak_rss_bytes", hwmPeakRSSBytes),
            ("final_rss_bytes", finalRSSBytes), ("baseline_allocated_bytes", baselineAllocatedBytes),
            ("peak_allocated_bytes", peakAllocatedBytes), ("final_allocated_bytes", finalAllocatedBytes),
            ("baseline_heap_exact_bytes", baselineHeapExactBytes), ("peak_heap_exact_bytes", peakHeapExactBytes),
            ("image_width", imageWidth), ("image_height", imageHeight), ("samples", samples),
            ("floor_bytes", floorBytes),
        ]
        for (column, value) in counts {
            if let value, value < 0 { return "\(column) is \(value): it cannot be negative" }
        }
        let measures: [(column: String, value: Double?)] = [
            ("fetch_s", fetchSeconds), ("render_s", renderSeconds), ("duration_s", durationSeconds),
            ("startup_s", startupSeconds), ("warmup_s", warmupSeconds), ("wall_s", wallSeconds),
            ("sampler_hz", samplerHertz), ("max_gap_ms", maxSampleGapMillis), ("sampler_cpu_s", samplerCPUSeconds),
        ]
        for (column, value) in measures {
            if let value, !(value.isFinite && value >= 0) {
                return "\(column) is \(value): it must be a finite number, 0 or more"
            }
        }
        if isSuccess, let peak = peakRSSBytes, let baseline = baselineRSSBytes, peak < baseline {
            return "peak_rss_bytes \(peak) is below baseline_rss_bytes \(baseline): a run's peak includes its baseline"
        }
        return nil
    }
}
