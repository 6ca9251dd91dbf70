import BenchCore
import Foundation
import Report

/// The same strategies measured twice against one server: after a warm-up fetch (the harness's
/// default) and cold (`--cold`: the child's first request is the measured one). Read from the
/// `cold-warm/warm` and `cold-warm/cold` run folders that `scripts/cold-warm.sh` writes.
package struct ColdWarmComparison: Sendable {
    package var warm: [CellSummary]
    package var cold: [CellSummary]
    /// What served the image (e.g. "nginx version: nginx/1.22.1"), from the folder's nginx-version.txt.
    package var server: String?

    package init(warm: [TrialResult], cold: [TrialResult], server: String?) {
        self.warm = CellSummary.summarize(warm)
        self.cold = CellSummary.summarize(cold)
        self.server = server
    }

    /// The folder's two runs, or nil when the folder (or one of its runs) is absent.
    static func load(from folder: URL, parse: (URL) throws -> [TrialResult]) throws -> ColdWarmComparison? {
        let warm = folder.appendingPathComponent("warm/" + TrialsCSV.fileName)
        let cold = folder.appendingPathComponent("cold/" + TrialsCSV.fileName)
        guard FileManager.default.fileExists(atPath: warm.path), FileManager.default.fileExists(atPath: cold.path)
        else {
            return nil
        }
        let server = try? String(contentsOf: folder.appendingPathComponent("nginx-version.txt"), encoding: .utf8)
        return ColdWarmComparison(
            warm: try parse(warm),
            cold: try parse(cold),
            server: server?.trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }

    func summary(_ summaries: [CellSummary], _ cell: TrialCell) -> CellSummary? {
        summaries.first { $0.cell == cell }
    }

    package var allocators: [Allocator] {
        Allocator.allCases.filter { allocator in cold.contains { $0.cell.allocator == allocator } }
    }

    /// Strategies in the order of their cold median peak under the first allocator, smallest first.
    package var strategies: [String] {
        guard let first = allocators.first else { return [] }
        return cold.filter { $0.cell.allocator == first && $0.peakRSSDelta != nil }
            .sorted { $0.peakRSSDelta!.median < $1.peakRSSDelta!.median }
            .map(\.cell.strategy)
    }

    /// Cold minus warm median peak RSS of a strategy (fetch only), in bytes.
    package func firstRequestCost(
        strategy: String,
        allocator: Allocator
    ) -> (warm: Distribution, cold: Distribution, coldHeap: Distribution?)? {
        let cell = TrialCell(strategy: strategy, render: .none, allocator: allocator)
        guard let warm = summary(warm, cell)?.peakRSSDelta, let coldSummary = summary(cold, cell),
            let cold = coldSummary.peakRSSDelta
        else { return nil }
        return (warm, cold, coldSummary.heapPeakDelta?.distribution)
    }
}
