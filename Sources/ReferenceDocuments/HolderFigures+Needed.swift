import BenchCore
import Report

/// "Who holds the peak, and how much of it is needed": the article's cases of the holders run
/// against their floors, the heap's excess by role and the peak RSS by residency category.
extension HolderFigures {
    /// The article's cases under both allocators, their runs with the floor by rule where the run
    /// predates `floor_bytes`.
    func neededCases() -> [NeededTables.Case] {
        let filled = flooredTrials
        return ArticleCase.all.flatMap { article in
            Allocator.allCases.compactMap { allocator -> NeededTables.Case? in
                let runs = filled.filter { $0.cell == article.cell(allocator) }
                return runs.isEmpty ? nil : ([article.title, allocator.title], runs.map(NeededRun.init))
            }
        }
    }

    /// The runs, each with its floor: its own `floor_bytes`, else by rule from the largest image the
    /// full decodes saw and the folder's recorded `--max-pixel` (unknown: no floor for a scaled render).
    package var flooredTrials: [TrialResult] {
        let full = trials.filter { $0.render == .full }
        let source = full.compactMap { run in run.imageWidth.flatMap { width in run.imageHeight.map { (width, $0) } } }
            .max { $0.0 * $0.1 < $1.0 * $1.1 }
        return RuleFloor.filled(trials, sourceWidth: source?.0, sourceHeight: source?.1, maxPixel: maxPixel)
    }

    static let remeasure = "`bench-reference measure holders` (results/holders/)"
    /// What a holders table says when the folder has no holders run.
    static let missing = "No holders run: \(remeasure) measures it.\n"

    package func floorTable() -> String {
        let cases = neededCases()
        guard !cases.isEmpty else { return Self.missing }
        return NeededTables.gaps(cases, remeasure: Self.remeasure)
            + NeededTables.heapTable(labels: ["case", "allocator"], cases: cases)
    }

    package func residencyTable() -> String {
        let cases = neededCases()
        guard !cases.isEmpty else { return Self.missing }
        return NeededTables.residencyTable(labels: ["case", "allocator"], cases: cases)
    }
}
