extension TrialResult {
    /// The first figure no run can have, named by its trials.csv column: a negative byte count or
    /// size, a time or rate that is negative or not finite, or (in a successful run) a peak RSS below
    /// its own baseline. nil when every figure is possible. A file that is not a run's (a corpus.csv,
    /// a hand-edited export) would otherwise be charted and gated as negative or NaN figures.
    package var impossibleFigure: String? {
        // Every measured figure (not a key, a flag or a figure derived from others) is 0 or more:
        // counts as integers, the rest as finite numbers.
        for column in TrialsCSV.columns {
            guard let value = column.number?(self) else { continue }
            if [.bytes, .pixels, .count].contains(column.column.unit) {
                if value < 0 { return "\(column.name) is \(Int(value)): it cannot be negative" }
            } else if !(value.isFinite && value >= 0) {
                return "\(column.name) is \(value): it must be a finite number, 0 or more"
            }
        }
        if isSuccess, let peak = peakRSSBytes, let baseline = baselineRSSBytes, peak < baseline {
            return "peak_rss_bytes \(peak) is below baseline_rss_bytes \(baseline): a run's peak includes its baseline"
        }
        return nil
    }
}
