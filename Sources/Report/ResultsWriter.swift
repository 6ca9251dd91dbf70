import Foundation
import BenchCore

/// Writes a run's exports into one folder: trials.csv, timeline.csv, summary.csv and trials.json,
/// each with the run's id (a run_id column, trials.json's context) so that `bench report` can tell
/// a consistent set from files of two runs, and environment.txt (`MachineEnvironment`). Each file
/// is replaced atomically. Writing goes through a `RescuingWriter`: when the folder cannot be
/// written mid-run, the files go to a rescue folder.
public struct ResultsWriter: ResultsFolder {
    public static let environmentFileName = "environment.txt"
    public var directory: URL
    public var runID: String?
    var sink: RescuingWriter?

    /// A plain writer into `directory` (throws on failure), for tools and tests.
    public init(directory: URL, runID: String? = nil) {
        self.directory = directory
        self.runID = runID
    }

    /// The writer of a run: its folder's id, and its rescue when the folder fails.
    public init(rescuing sink: RescuingWriter) {
        self.directory = sink.folder.directory
        self.runID = sink.folder.runID
        self.sink = sink
    }

    /// Cheap enough to call after every trial: the rows measured so far are never lost.
    public func writeTrials(_ results: [TrialResult]) throws {
        try write([("trials.csv", Data(TrialsCSV.render(results, runID: runID).utf8))], final: false)
    }

    public func writeAll(_ results: [TrialResult], context: RunContext) throws {
        var context = context
        context.runID = runID ?? context.runID
        try write([
            ("trials.csv", Data(TrialsCSV.render(results, runID: runID).utf8)),
            ("timeline.csv", Data(TimelineCSV.render(results, runID: runID).utf8)),
            ("summary.csv", Data(SummaryCSV.render(CellSummary.summarize(results), runID: runID).utf8)),
            ("trials.json", try JSONExport(context: context, trials: results).encoded()),
            ("holders.csv", Data(HoldersCSV.render(results, runID: runID).utf8)),
            ("holders.folded", Data(HoldersFolded.render(results).utf8)),
            (Self.environmentFileName, Data(MachineEnvironment.describe().utf8)),
        ], final: true)
    }

    /// The files as written: in the run's folder, or in the rescue folder after a failure.
    public var writtenFiles: [URL] {
        let folder = sink?.currentFolder ?? directory
        return ["trials.csv", "summary.csv", "timeline.csv", "trials.json", "holders.csv", "holders.folded",
                Self.environmentFileName].map { folder.appendingPathComponent($0) }
    }

    private func write(_ files: [(name: String, contents: Data)], final: Bool) throws {
        if let sink {
            sink.write(files, final: final)
        } else {
            for file in files { try AtomicFile.write(file.contents, to: directory.appendingPathComponent(file.name)) }
        }
    }
}
