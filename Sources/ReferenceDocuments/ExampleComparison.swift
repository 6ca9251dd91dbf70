import BenchCore
import Foundation
import Report

/// AsyncHTTPClient's two strategies measured through the ImageMemoryBench library by the example
/// package's own executable (`bench-reference measure example`: results/example/), beside URLSession's data and
/// download tasks measured in the same run.
package struct ExampleComparison: Sendable {
    package var summaries: [CellSummary]
    /// The body's size on the wire, the largest a successful run fetched.
    package var payloadBytes: Int?

    /// The strategies in the order the report shows them: in memory, then to a file.
    package static let strategies = ["ahc-collect", "data", "ahc-file", "download"]

    /// Each cell's holders at its median run (from trials.json; none for a run that has no holders).
    package var medianHolders: [TrialCell: [PeakHolder]] = [:]

    package init(trials: [TrialResult], holderRuns: [TrialResult] = []) {
        summaries = CellSummary.summarize(trials)
        payloadBytes = trials.filter(\.isSuccess).compactMap(\.payloadBytes).max()
        for (cell, runs) in Dictionary(grouping: holderRuns, by: \.cell) {
            medianHolders[cell] = TrialResult.medianHolderRun(runs)?.holders
        }
    }

    /// The folder's run, or nil when it has no trials.csv; its holders from trials.json when it has them.
    static func load(from folder: URL, parse: (URL) throws -> [TrialResult]) throws -> ExampleComparison? {
        let trials = folder.appendingPathComponent(TrialsCSV.fileName)
        guard FileManager.default.fileExists(atPath: trials.path) else { return nil }
        var holderRuns: [TrialResult] = []
        if let json = try? Data(contentsOf: folder.appendingPathComponent(JSONExport.fileName)) {
            holderRuns = (try? JSONDecoder.trials.decode(JSONExport.self, from: json).trials) ?? []
        }
        return ExampleComparison(trials: try parse(trials), holderRuns: holderRuns)
    }

    package var allocators: [Allocator] {
        Allocator.allCases.filter { allocator in summaries.contains { $0.cell.allocator == allocator } }
    }

    package var renders: [RenderMode] {
        RenderMode.ordered(summaries.map(\.cell.render))
    }

    package func summary(_ strategy: String, _ render: RenderMode, _ allocator: Allocator) -> CellSummary? {
        summaries.first { $0.cell == TrialCell(strategy: strategy, render: render, allocator: allocator) }
    }
}
