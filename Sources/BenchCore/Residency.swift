import Foundation

/// How a measured child picks the residency snapshot it keeps (the probe's `ResidencyPeak`).
package enum ResidencySnapshotRule {
    /// A new snapshot is taken when RSS rises this far above the highest so far (or a 64th of the rise,
    /// when that is more). A peak can sit up to a step above the highest snapshot plus what rose after
    /// its reading: the step stays below the smallest gap the figures allow (256 KiB, or 2% of the rise
    /// against a 64th), with room for that rise. At 256 KiB a gap of 264 KiB was seen.
    package static let minimumStepBytes = 192 * 1024
}

/// The parts RSS is broken into at a moment of a run (`residency.csv`). Each is a delta over the
/// same category read at the baseline; with `unattributed` they add up to the moment's RSS delta.
package enum ResidencyCategory: String, Codable, Sendable, CaseIterable {
    /// The recorded heap blocks (holders.csv's), their resident pages (mincore).
    case heapHolders = "heap-holders"
    /// The heap's live bytes under the recording threshold, counted as resident (an upper bound).
    case smallHeapBlocks = "small-heap-blocks"
    /// What the allocator keeps after free: the resident pages of its own memory (glibc's arenas,
    /// jemalloc's mappings) beyond the heap's blocks: freed chunks and pages, its bookkeeping, its
    /// threads' cached blocks. Without the exact heap, glibc's counters (its free bytes).
    case allocatorFree = "allocator-free"
    /// The live threads' stacks, resident (mincore over their recorded ranges).
    case threadStacks = "thread-stacks"
    /// File-backed pages: statm's shared field.
    case fileBacked = "file-backed"
    /// Anonymous mappings made through mmap() by code other than the allocator (the sampler's buffer,
    /// a library's own), resident (mincore).
    case otherAnonymous = "other-anonymous"
    /// The moment's RSS delta less every category above: what no measurement explains.
    case unattributed

    /// How the category's bytes are obtained under `allocator`, with the exact heap counted or not.
    package func how(under allocator: Allocator, exactHeap: Bool) -> ResidencyHow {
        switch self {
        case .heapHolders, .threadStacks, .fileBacked, .otherAnonymous: return .measured
        case .smallHeapBlocks: return .upperBound
        case .allocatorFree: return allocator == .system && !exactHeap ? .upperBound : .derived
        case .unattributed: return .derived
        }
    }
}

package enum ResidencyHow: String, Codable, Sendable {
    case measured
    case derived
    case upperBound = "upper-bound"
}

/// The two moments of a run that residency.csv breaks down.
package enum ResidencyMoment: String, Codable, Sendable, CaseIterable {
    /// The residency snapshot with the highest RSS: the one nearest the RSS peak.
    case rssPeak = "rss-peak"
    /// The window's end, once RSS and the heap settled: which memory stayed.
    case end
}

/// One line of residency.csv without its run: a category's delta at a moment.
package struct ResidencyRow: Codable, Sendable, Equatable {
    package var moment: ResidencyMoment
    package var category: ResidencyCategory
    package var bytes: Int

    package init(moment: ResidencyMoment, category: ResidencyCategory, bytes: Int) {
        self.moment = moment
        self.category = category
        self.bytes = bytes
    }

    /// The rows of one moment: each category's delta over the baseline, then `unattributed`, the
    /// moment's RSS delta less their sum.
    package static func rows(moment: ResidencyMoment, rssDelta: Int, deltas: [ResidencyCategory: Int]) -> [ResidencyRow]
    {
        let measured = ResidencyCategory.allCases.filter { $0 != .unattributed }
        let rows = measured.map { ResidencyRow(moment: moment, category: $0, bytes: deltas[$0] ?? 0) }
        let explained = rows.reduce(0) { $0 + $1.bytes }
        return rows + [ResidencyRow(moment: moment, category: .unattributed, bytes: rssDelta - explained)]
    }
}

extension TrialResult {
    /// A moment's rows, in the order of `ResidencyCategory`.
    package func residency(at moment: ResidencyMoment) -> [ResidencyRow] {
        (residency ?? []).filter { $0.moment == moment }
    }
}
