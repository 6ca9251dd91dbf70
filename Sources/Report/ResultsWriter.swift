import BenchCore
import Foundation

/// Writes a run's exports into one folder: trials.csv, timeline.csv, summary.csv and trials.json,
/// each with the run's id (a run_id column, trials.json's context) so that `bench report` can tell
/// a consistent set from files of two runs, and environment.txt (`MachineEnvironment`). A run appends
/// trials.csv's, timeline.csv's and holders.csv's rows as each run ends; the other files are
/// rebuilt from every row and replaced atomically at the end. Writing goes through a
/// `RescuingWriter`: when the folder cannot be written mid-run, the files go to a rescue folder.
package struct ResultsWriter: ResultsFolder {
    package static let environmentFileName = "environment.txt"
    package var directory: URL
    package var runID: String?
    var sink: RescuingWriter?

    /// A plain writer into `directory` (throws on failure), for tools and tests.
    package init(directory: URL, runID: String? = nil) {
        self.directory = directory
        self.runID = runID
    }

    /// The writer of a run: its folder's id, and its rescue when the folder fails.
    package init(rescuing sink: RescuingWriter) {
        self.directory = sink.folder.directory
        self.runID = sink.folder.runID
        self.sink = sink
    }

    /// Rewrites trials.csv whole (tools and tests; a run appends with `appendRow`).
    package func writeTrials(_ results: [TrialResult]) throws {
        try write([(TrialsCSV.fileName, Data(TrialsCSV.render(results, runID: runID).utf8))], final: false)
    }

    /// Starts trials.csv, timeline.csv and holders.csv (`resuming`: reopens an interrupted run's),
    /// each row to be appended by `appendRow` as its run ends.
    package func startRows(resuming: Bool = false) {
        sink?.startRows(HoldersCSV.fileName, header: HoldersCSV.header, resuming: resuming)
        sink?.startRows(ResidencyCSV.fileName, header: ResidencyCSV.header, resuming: resuming)
        sink?.startRows(TrialsCSV.fileName, header: TrialsCSV.header(runID: runID), resuming: resuming)
        sink?.startRows(TimelineCSV.fileName, header: TimelineCSV.header(runID: runID), resuming: resuming)
    }

    /// Appends a finished run's holders, residency, row and samples: the cost does not grow with the
    /// rows before it. Holders and residency go first: a kill before the row leaves rows of a run
    /// trials.csv lacks (dropped when it is resumed, and measured again), never a row whose are lost.
    package func appendRow(_ result: TrialResult) {
        sink?.append(HoldersCSV.fileName, lines: HoldersCSV.lines(result, runID: runID))
        sink?.append(ResidencyCSV.fileName, lines: ResidencyCSV.lines(result, runID: runID))
        sink?.append(TrialsCSV.fileName, lines: TrialsCSV.line(result, runID: runID))
        sink?.append(TimelineCSV.fileName, lines: TimelineCSV.lines(result, runID: runID))
    }

    /// The files written from every row at the end (and the rows' own files, unless they were appended).
    package func writeAll(_ results: [TrialResult], context: RunContext) throws {
        var context = context
        context.runID = runID ?? context.runID
        sink?.finishRows()
        let rows: [(name: String, contents: Data)] =
            sink?.rowsAppended == true
            ? []
            : [
                (TrialsCSV.fileName, Data(TrialsCSV.render(results, runID: runID).utf8)),
                (TimelineCSV.fileName, Data(TimelineCSV.render(results, runID: runID).utf8)),
                (HoldersCSV.fileName, Data(HoldersCSV.render(results, runID: runID).utf8)),
                (ResidencyCSV.fileName, Data(ResidencyCSV.render(results, runID: runID).utf8)),
            ]
        try write(
            rows + [
                (SummaryCSV.fileName, Data(SummaryCSV.render(CellSummary.summarize(results), runID: runID).utf8)),
                (JSONExport.fileName, try JSONExport(context: context, trials: results).encoded()),
                (HoldersFolded.fileName, Data(HoldersFolded.render(results).utf8)),
                (Self.environmentFileName, Data(MachineEnvironment.describe(context.provenance).utf8)),
            ],
            final: true
        )
    }

    /// The files as written: in the run's folder, or in the rescue folder after a failure.
    package var writtenFiles: [URL] {
        let folder = sink?.currentFolder ?? directory
        return [
            TrialsCSV.fileName, SummaryCSV.fileName, TimelineCSV.fileName, JSONExport.fileName, HoldersCSV.fileName,
            HoldersFolded.fileName,
            ResidencyCSV.fileName, Self.environmentFileName,
        ].map { folder.appendingPathComponent($0) }
    }

    private func write(_ files: [(name: String, contents: Data)], final: Bool) throws {
        if let sink {
            sink.write(files, final: final)
        } else {
            for file in files {
                try AtomicFile.writeInFolder(file.contents, to: directory.appendingPathComponent(file.name))
            }
        }
    }
}
