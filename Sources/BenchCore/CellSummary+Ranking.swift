extension CellSummary {
    /// Cells from the smallest median peak RSS delta to the largest; cells without a successful
    /// run go last. Ties keep their matrix order, so the ranking is deterministic.
    package static func rankedByPeakRSSDelta(_ summaries: [CellSummary]) -> [CellSummary] {
        summaries.enumerated().sorted { lhs, rhs in
            switch (lhs.element.peakRSSDelta?.median, rhs.element.peakRSSDelta?.median) {
            case let (left?, right?) where left != right: return left < right
            case (nil, _?): return false
            case (_?, nil): return true
            default: return lhs.offset < rhs.offset
            }
        }.map(\.element)
    }
}
