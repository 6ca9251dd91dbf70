/// The runs of one cell reduced to distributions. Only successful runs enter the statistics.
package struct CellSummary: Sendable {
    package var cell: TrialCell
    package var succeeded: Int
    package var failed: Int
    package var peakRSSDelta: Distribution?
    /// Sampled heap peak over baseline (allocator counters).
    package var peakAllocatedDelta: Distribution?
    /// Exact heap peak over baseline (CHeapPeak's counters), when the runs had it.
    package var peakHeapExactDelta: Distribution?
    package var finalRSSDelta: Distribution?
    /// The runs' floors (`floor_bytes`); nil when the cell's floor rule is undeclared.
    package var floorBytes: Distribution?
    package var duration: Distribution?
    package var payloadBytes: Int?

    package init(cell: TrialCell, runs: [TrialResult]) {
        self.cell = cell
        let ok = runs.filter(\.isSuccess)
        succeeded = ok.count
        failed = runs.count - ok.count
        peakRSSDelta = Distribution(ok.compactMap(\.peakRSSDeltaBytes))
        peakAllocatedDelta = Distribution(ok.compactMap(\.peakAllocatedDeltaBytes))
        peakHeapExactDelta = Distribution(ok.compactMap(\.peakHeapExactDeltaBytes))
        finalRSSDelta = Distribution(ok.compactMap(\.finalRSSDeltaBytes))
        floorBytes = Distribution(ok.compactMap(\.floorBytes))
        duration = Distribution(ok.compactMap(\.durationSeconds))
        payloadBytes = ok.compactMap(\.payloadBytes).max()
        imageSizes = Set(
            ok.compactMap { run in run.imageWidth.flatMap { width in run.imageHeight.map { "\(width)x\($0)" } } }
        )
    }

    /// The image sizes the successful runs decoded ("6000x4000"); empty when none rendered.
    package var imageSizes: Set<String>

    /// The article's figure for this cell, only when the cell measured the article's image: a payload
    /// within 10% of its 13.1 MB and, where the runs decoded it, its 6000 x 4000 pixels. Beside a small
    /// fixture or another image the iOS figure would compare nothing.
    package var articleOverBaselineBytes: Int? {
        guard let payloadBytes,
            abs(Double(payloadBytes - ArticleReference.payloadBytes)) <= 0.1 * Double(ArticleReference.payloadBytes),
            imageSizes.isSubset(of: ["\(ArticleReference.imageWidth)x\(ArticleReference.imageHeight)"])
        else { return nil }
        return ArticleReference.overBaselineBytes(strategy: cell.strategy, render: cell.render)
    }

    /// One summary per cell, in the order cells first appear in `results`.
    package static func summarize(_ results: [TrialResult]) -> [CellSummary] {
        var order: [TrialCell] = []
        var runs: [TrialCell: [TrialResult]] = [:]
        for result in results {
            if runs[result.cell] == nil { order.append(result.cell) }
            runs[result.cell, default: []].append(result)
        }
        return order.map { CellSummary(cell: $0, runs: runs[$0]!) }
    }

    /// The heap peak to show: exact when every successful run had it, else sampled.
    package var heapPeakDelta: (distribution: Distribution, exact: Bool)? {
        if let exact = peakHeapExactDelta, exact.count == succeeded { return (exact, true) }
        return peakAllocatedDelta.map { ($0, false) }
    }

    /// RSS counters are exact only to 32 pages a CPU; spreads below that are not instability.
    package static let rssResolutionBytes = 256 * 1024

    /// A warning when the cell's peak RSS varies more than a benchmark should (CV over 5%
    /// and a standard deviation above the RSS counters' resolution), with what to do about it.
    package var stabilityWarning: String? {
        guard let rss = peakRSSDelta, rss.count >= 3, rss.coefficientOfVariation > 0.05,
            rss.standardDeviation > Double(Self.rssResolutionBytes)
        else { return nil }
        return String(
            format: "%@ is unstable: peak RSS CV %.1f%%, sd %.2f MB over %d runs; "
                + "try more --runs, a quieter machine, or pinning the run to a core (taskset -c 1 bench ...)",
            cell.description,
            rss.coefficientOfVariation * 100,
            rss.standardDeviation / 1e6,
            rss.count
        )
    }

    /// Peak RSS delta per payload byte: how many copies of the body the strategy holds at its peak.
    package var bytesHeldPerPayloadByte: Double? {
        guard let median = peakRSSDelta?.median, let payloadBytes, payloadBytes > 0 else { return nil }
        return median / Double(payloadBytes)
    }
}
