import BenchCore
import Foundation

/// The "how much of it is needed" chart's data: each article case under each allocator at its median
/// run (by peak RSS), two bars side by side: its peak RSS stacked by residency category, and its
/// exact heap peak stacked by the holders' roles; the floor is drawn as a line over both.
/// All over the baseline, in MB.
package struct ResidencyChart: Sendable {
    /// Runs with residency (trials.csv's rows with residency.csv's filled in).
    package var trials: [TrialResult]
    /// holders.csv's runs, for the heap's bytes by role.
    package var holders: [HolderRun]

    package init(trials: [TrialResult], holders: [HolderRun]) {
        self.trials = trials.filter { $0.isSuccess && $0.residency != nil && $0.peakRSSDeltaBytes != nil }
        self.holders = holders
    }

    /// The bar categories: residency's without `unattributed` below zero (a stacked bar cannot show it).
    static let categories = ResidencyCategory.allCases
    static let roles = HolderRole.allCases

    func medianRun(_ cell: TrialCell) -> TrialResult? {
        let runs = trials.filter { $0.cell == cell }
            .sorted { ($0.peakRSSDeltaBytes!, $0.run) < ($1.peakRSSDeltaBytes!, $1.run) }
        return runs.isEmpty ? nil : runs[(runs.count - 1) / 2]
    }

    /// The heap peak over the baseline by role: the recorded holders' roles, and `other` the rest of
    /// the exact heap peak over the baseline (small blocks less the baseline's). Nil without roles.
    func heapByRole(_ run: TrialResult) -> [HolderRole: Int]? {
        guard let heap = run.peakHeapExactDeltaBytes,
            let held = holders.first(where: { $0.cell == run.cell && $0.run == run.run }),
            held.holders.allSatisfy({ $0.role != nil })
        else { return nil }
        var bytes: [HolderRole: Int] = [:]
        for holder in held.holders where holder.role != .other { bytes[holder.role!, default: 0] += holder.bytes }
        bytes[.other] = max(0, heap - bytes.values.reduce(0, +))
        return bytes
    }

    /// residency.dat: a header of column titles (the categories, the roles, the floor), then two rows
    /// per case, its RSS bar (with the floor) then its heap bar; nil when no article case has residency.
    package func table() -> String? {
        let cases = ArticleCase.all.flatMap { article in
            Allocator.allCases.compactMap { allocator in
                medianRun(article.cell(allocator)).map { (article, allocator, $0) }
            }
        }
        guard !cases.isEmpty else { return nil }
        func quoted(_ text: String) -> String { "\"" + text + "\"" }
        func megabytes(_ bytes: Int) -> String { String(format: "%.3f", Double(max(0, bytes)) / 1e6) }
        let zeros = { (count: Int) in Array(repeating: "0", count: count) }
        var lines = [
            ([quoted("case")] + Self.categories.map { quoted("RSS: " + $0.rawValue) }
                + Self.roles.map { quoted("heap: " + $0.rawValue) } + [quoted("floor")]).joined(separator: " ")
        ]
        for (article, allocator, run) in cases {
            let what = article.render == .none ? article.strategy : "\(article.strategy) + \(article.render.rawValue)"
            let name = allocator == .system ? "glibc" : allocator.rawValue
            let floor = run.floorBytes.map { String(format: "%.3f", Double($0) / 1e6) } ?? "NaN"
            let peak = run.residency(at: .rssPeak)
            let rss = Self.categories.map { category in megabytes(peak.first { $0.category == category }?.bytes ?? 0) }
            let label = quoted("\(what)\\n\(name) RSS")
            lines.append(([label] + rss + zeros(Self.roles.count) + [floor]).joined(separator: " "))
            let heap =
                heapByRole(run).map { bytes in Self.roles.map { megabytes(bytes[$0] ?? 0) } }
                ?? zeros(Self.roles.count)
            // The floor is drawn once, from the RSS bar across the heap bar.
            lines.append(([quoted("heap")] + zeros(Self.categories.count) + heap + ["NaN"]).joined(separator: " "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension RunFolderReport {
    /// The residency chart's data from the first of `folders` with a residency.csv (the run's own by
    /// default): its trials.csv, residency.csv and holders.csv.
    package func residencyChart(from folders: [URL]? = nil) throws -> ResidencyChart? {
        for folder in folders ?? [directory] {
            let run = RunFolderReport(directory: folder)
            let residencyFile = folder.appendingPathComponent(ResidencyCSV.fileName)
            guard FileManager.default.fileExists(atPath: residencyFile.path),
                FileManager.default.fileExists(atPath: run.trialsCSV.path)
            else { continue }
            let residency = try parse(residencyFile) { try ResidencyCSV.parse($0) }
            let trials = try parse(run.trialsCSV) { try TrialsFile.parseDroppingTornLine($0, path: run.trialsCSV.path) }
                .map { trial in
                    var filled = trial
                    filled.residency = residency[RunKey(cell: trial.cell, run: trial.run)]
                    return filled
                }
            let holdersFile = folder.appendingPathComponent(HoldersCSV.fileName)
            let holders =
                FileManager.default.fileExists(atPath: holdersFile.path)
                ? try parse(holdersFile) { try HoldersCSV.parse($0) } : []
            return ResidencyChart(trials: trials, holders: holders)
        }
        return nil
    }
}
