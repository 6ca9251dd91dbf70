import Harness

/// The runs of one cell reduced to distributions. Only successful runs enter the statistics.
public struct CellSummary: Sendable {
    public var cell: TrialCell
    public var succeeded: Int
    public var failed: Int
    public var peakRSSDelta: Distribution?
    public var peakAllocatedDelta: Distribution?
    public var finalRSSDelta: Distribution?
    public var duration: Distribution?
    public var payloadBytes: Int?

    public init(cell: TrialCell, runs: [TrialResult]) {
        self.cell = cell
        let ok = runs.filter(\.isSuccess)
        succeeded = ok.count
        failed = runs.count - ok.count
        peakRSSDelta = Distribution(ok.compactMap(\.peakRSSDeltaBytes))
        peakAllocatedDelta = Distribution(ok.compactMap(\.peakAllocatedDeltaBytes))
        finalRSSDelta = Distribution(ok.compactMap { run in
            run.finalRSSBytes.flatMap { final in run.baselineRSSBytes.map { final - $0 } }
        })
        duration = Distribution(ok.compactMap(\.durationSeconds))
        payloadBytes = ok.compactMap(\.payloadBytes).max()
    }

    /// One summary per cell, in the order cells first appear in `results`.
    public static func summarize(_ results: [TrialResult]) -> [CellSummary] {
        var order: [TrialCell] = []
        var runs: [TrialCell: [TrialResult]] = [:]
        for result in results {
            if runs[result.cell] == nil { order.append(result.cell) }
            runs[result.cell, default: []].append(result)
        }
        return order.map { CellSummary(cell: $0, runs: runs[$0]!) }
    }

    /// Peak RSS delta per payload byte: how many copies of the body the strategy holds at its peak.
    public var bytesHeldPerPayloadByte: Double? {
        guard let median = peakRSSDelta?.median, let payloadBytes, payloadBytes > 0 else { return nil }
        return median / Double(payloadBytes)
    }
}
