import Foundation
import Harness

/// Writes a run's exports into one folder: trials.csv, timeline.csv, summary.csv and trials.json.
/// Each file is replaced atomically, so a crash or Ctrl-C leaves the last complete version.
public struct ResultsWriter: ResultsFolder {
    public var directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// Cheap enough to call after every trial: the rows measured so far are never lost.
    public func writeTrials(_ results: [TrialResult]) throws {
        try AtomicFile.write(TrialsCSV.render(results), to: trialsCSV)
    }

    public func writeAll(_ results: [TrialResult], context: RunContext) throws {
        try writeTrials(results)
        try AtomicFile.write(TimelineCSV.render(results), to: timelineCSV)
        try AtomicFile.write(SummaryCSV.render(CellSummary.summarize(results)), to: summaryCSV)
        try AtomicFile.write(JSONExport(context: context, trials: results).encoded(), to: trialsJSON)
    }
}
