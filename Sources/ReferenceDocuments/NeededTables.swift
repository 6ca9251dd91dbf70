import BenchCore
import Report

/// One run reduced to what "how much of it is needed" shows: its floor, its exact heap peak, the
/// excess over the floor by role and its RSS at the RSS peak by category, all over the baseline.
struct NeededRun: Sendable, Equatable {
    var floorBytes: Int?
    var heapPeakBytes: Int?
    /// Each role's bytes over its part of the floor (`FloorExcess.byRole`); nil without holders by role.
    var excess: [HolderRole: Int]?
    var peakRSSBytes: Int?
    /// residency.csv's rows at the RSS peak; nil when the run took no residency snapshots.
    var residency: [ResidencyCategory: Int]?

    init(
        floorBytes: Int?,
        heapPeakBytes: Int?,
        excess: [HolderRole: Int]?,
        peakRSSBytes: Int?,
        residency: [ResidencyCategory: Int]?
    ) {
        self.floorBytes = floorBytes
        self.heapPeakBytes = heapPeakBytes
        self.excess = excess
        self.peakRSSBytes = peakRSSBytes
        self.residency = residency
    }

    /// A trials.json run: its floor (`floorBytes`, `floorParts`), holders and residency. A run whose
    /// recording found no block over the threshold has all its heap in small blocks: `other`.
    init(_ run: TrialResult) {
        var byRole = FloorExcess.of(run)?.byRole ?? []
        if byRole.isEmpty, run.holders?.isEmpty == true, let parts = run.floorParts, let excess = FloorExcess.of(run),
            let small = run.smallBlocksBytes
        {
            let rows = [
                PeakHolder(
                    bytes: small,
                    blocks: 0,
                    allocatedBy: PeakHolder.smallBlocks,
                    module: "",
                    stack: [],
                    role: .other
                )
            ]
            byRole = FloorExcess.byRole(rows, parts: parts, heapOverFloor: excess.heapBytes)
        }
        let peak = run.residency(at: .rssPeak)
        self.init(
            floorBytes: run.floorBytes,
            heapPeakBytes: run.peakHeapExactDeltaBytes,
            excess: byRole.isEmpty ? nil : Dictionary(byRole.map { ($0.role, $0.bytes) }) { first, _ in first },
            peakRSSBytes: run.peakRSSDeltaBytes,
            residency: peak.isEmpty ? nil : Dictionary(peak.map { ($0.category, $0.bytes) }) { _, last in last }
        )
    }
}

/// The tables of "Who holds the peak, and how much of it is needed": a row per case (its labels,
/// then medians over its runs, each column on its own), one table for the heap against the floor
/// and one for the peak RSS by residency category.
package enum NeededTables {
    typealias Case = (labels: [String], runs: [NeededRun])

    /// The roles shown: `body` only when some case holds the body more or less than its floor does.
    static func roles(_ cases: [Case]) -> [HolderRole] {
        let bodyDiffers = cases.contains { entry in
            abs(median(entry.runs.compactMap { $0.excess?[.body] }) ?? 0) >= 50_000
        }
        return HolderRole.allCases.filter { $0 != .body || bodyDiffers }
    }

    static func median(_ values: [Int]) -> Double? { Distribution(values)?.median }

    /// MB to one decimal; a value that rounds to zero is "0.0", whatever its sign.
    package static func mb(_ value: Double?) -> String {
        guard let value else { return "–" }
        return abs(value) < 50_000 ? "0.0" : String(format: "%.1f", value / 1e6)
    }

    /// Floor, exact heap peak, and the excess over the floor by role (MB, medians over the runs).
    static func heapTable(labels: [String], cases: [Case]) -> String {
        let shown = roles(cases)
        let rows = cases.map { entry -> [String] in
            let runs = entry.runs
            let floor = median(runs.compactMap(\.floorBytes))
            let heap = median(runs.compactMap(\.heapPeakBytes))
            let over = median(
                runs.compactMap { run in
                    run.heapPeakBytes.flatMap { heap in run.floorBytes.map { heap - $0 } }
                }
            )
            return entry.labels + [mb(floor), mb(heap), mb(over)]
                + shown.map { role in mb(median(runs.compactMap { $0.excess?[role] })) }
        }
        let header = labels + ["floor", "exact heap peak", "over the floor"] + shown.map(\.rawValue)
        return MarkdownTable.render(header: header, rows: rows, leftAligned: labels.count)
    }

    /// Floor, peak RSS, and the peak RSS by residency category at the RSS peak (MB, medians over the runs).
    static func residencyTable(labels: [String], cases: [Case]) -> String {
        let rows = cases.map { entry -> [String] in
            let runs = entry.runs
            return entry.labels
                + [mb(median(runs.compactMap(\.floorBytes))), mb(median(runs.compactMap(\.peakRSSBytes)))]
                + ResidencyCategory.allCases.map { category in mb(median(runs.compactMap { $0.residency?[category] })) }
        }
        return MarkdownTable.render(
            header: labels + ["floor", "peak RSS"] + ResidencyCategory.allCases.map(\.rawValue),
            rows: rows,
            leftAligned: labels.count
        )
    }

    /// What the tables lack when the runs predate floors, roles or residency ("" when nothing).
    static func gaps(_ cases: [Case], remeasure: String) -> String {
        let runs = cases.flatMap(\.runs)
        var missing: [String] = []
        if !runs.contains(where: { $0.floorBytes != nil }) { missing.append("floors") }
        if !runs.contains(where: { $0.excess != nil }) { missing.append("holders by role") }
        if !runs.contains(where: { $0.residency != nil }) { missing.append("residency") }
        guard !missing.isEmpty else { return "" }
        let listed =
            missing.count == 1
            ? missing[0] : missing.dropLast().joined(separator: ", ") + " or " + missing.last!
        return "These runs have no " + listed + " (measured before they were recorded): "
            + remeasure + " measures them again.\n\n"
    }
}
