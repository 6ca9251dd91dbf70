import ArgumentParser
import Corpus
import Foundation
import Harness
import Report
import Scenarios

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Aggregate the results for the charts and regenerate REPORT.md's tables from the CSVs.",
        discussion: """
        A corpus run's folder (corpus.csv, no trials.csv), even one whose run was stopped, gets its \
        corpus-summary.csv and chart data written from corpus.csv's rows.

        Reads trials.csv (required), timeline.csv, sweep.csv, trials.json and environment.txt from the \
        results folder. Writes gnuplot's input (.dat files and vars.gp) and rewrites the parts of the \
        report between <!-- table:NAME --> and <!-- value:NAME --> markers; the prose around them is kept. \
        `make plots` runs this, then the gnuplot scripts.

        A scenario.csv in the folder (bench scenario list-scroll) must hold rows of one setting: its chart \
        draws them together. A folder with a SCENARIO.md (the committed reference) also gets its tables and \
        figures rewritten from scenario.csv and scenario-memory-limit.csv, scenario-faults.csv and \
        scenario-speed.csv, each of which may vary only in its own setting (memory limit; fault and retries; speed).

        Exit status: 0 done; 64 bad command-line input; 65 a file is malformed (trials.csv: a missing column or \
        an impossible figure, named), or a scenario CSV mixes settings; 66 trials.csv or the --readme is missing; \
        73 an output cannot be written (a folder where the report goes, a FIFO nobody reads, a full disk). \
        A --report-file that is a symlink has its target rewritten; /dev/null or a FIFO being read gets the \
        report written through.
        """)

    @Option(help: "Folder with trials.csv and the other results; the committed reference is results/ (`make reference`).")
    var results = "runs/latest"

    @Option(help: "Folder for the chart data (default: <results>/charts/data).")
    var dataOut: String?

    @Option(help: "The report to regenerate (default: <results>/REPORT.md); created from a skeleton if missing.")
    var reportFile: String?

    @Flag(help: "Only write the chart data; leave the report alone.")
    var noReport = false

    @Option(help: "Also regenerate the marked figures of this document (README.md, for the committed reference only).")
    var readme: String?

    func run() throws {
        // Before anything is written: a --readme that is not there is a mistyped path, not "no figures to update".
        if let readme, !FileManager.default.fileExists(atPath: readme) {
            throw BenchFailure(.noInput, "--readme \(readme) does not exist; it names the document whose marked figures are regenerated, e.g. README.md").reported()
        }
        let folder = URL(fileURLWithPath: results, isDirectory: true)
        // A corpus run's folder (stopped or not): its summary and chart data from corpus.csv's rows.
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent("trials.csv").path), CorpusFolder.isCorpusFolder(folder) {
            do {
                let written = try CorpusFolder.finish(folder)
                print("wrote \(written.map(\.path).joined(separator: ", ")) from \(folder.appendingPathComponent(CorpusFolder.rowsFile).path)")
                return
            } catch let error as AtomicFile.WriteError {
                throw BenchFailure(.cannotCreateOutput, error.description).reported()
            } catch {
                throw BenchFailure(.badInput, "\(folder.appendingPathComponent(CorpusFolder.rowsFile).path): \(error)").reported()
            }
        }
        let report = ResultsReport(directory: folder)
        let dataFolder = URL(fileURLWithPath: dataOut ?? folder.appendingPathComponent("charts/data").path, isDirectory: true)
        let reportURL = URL(fileURLWithPath: reportFile ?? folder.appendingPathComponent("REPORT.md").path)
        do {
            let figures = try report.load()
            try Self.checkScenarioCSV(in: folder)
            // The report first: a --report-file that cannot be written (a folder, a FIFO nobody reads)
            // is refused before any chart data is written.
            if !noReport {
                try report.updateReport(figures, at: reportURL)
                print("regenerated the tables of \(reportURL.path)")
            }
            let written = try report.writeChartData(figures, to: dataFolder)
            print("wrote \(written.count) chart data files to \(dataFolder.path)")
            if try Self.regenerateScenarioDocument(in: folder) {
                print("regenerated the tables of \(folder.appendingPathComponent("SCENARIO.md").path)")
            }
            if let readme {
                let url = URL(fileURLWithPath: readme)
                try report.updateReport(figures, at: url)
                print("regenerated the figures of \(url.path)")
            }
        } catch let error as ReportError {
            throw BenchFailure(error.isMissingInput ? .noInput : .badInput, error.description).reported()
        } catch let error as ScenarioError {
            throw BenchFailure(.badInput, error.description).reported()
        } catch let error as AtomicFile.WriteError {
            throw BenchFailure(.cannotCreateOutput, error.description).reported()
        }
    }

    /// SCENARIO.md's generated tables and figures from the folder's scenario CSVs (scenario.csv and
    /// scenario-*.csv, `ScenarioDocument`); false when the folder has no SCENARIO.md or no scenario.csv
    /// (a user's run: only the committed reference has SCENARIO.md).
    static func regenerateScenarioDocument(in folder: URL) throws -> Bool {
        let document = folder.appendingPathComponent("SCENARIO.md")
        guard let text = try? String(contentsOf: document, encoding: .utf8),
              FileManager.default.fileExists(atPath: folder.appendingPathComponent(ScenarioDocument.caps).path) else { return false }
        let figures = try ScenarioDocument(folder: folder)
        let updated = try GeneratedSections.apply(to: text, blocks: figures.blocks, values: figures.values)
        if updated != text { try AtomicFile.write(Data(updated.utf8), to: document) }
        return true
    }

    /// The list-scroll chart (plots/scenario.gp) draws every row of scenario.csv as one setting:
    /// refuse a file whose rows come from several (invocations appended with other settings).
    static func checkScenarioCSV(in folder: URL) throws {
        let url = folder.appendingPathComponent("scenario.csv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return }
        _ = try ScenarioCSV.singleGroup(text, path: url.path)
    }
}
