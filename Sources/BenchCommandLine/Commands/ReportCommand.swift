import ArgumentParser
import BenchCore
import Corpus
import Foundation
import Measuring
import Report
import Scenarios

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a run folder's chart data and its REPORT.md tables from its CSVs.",
        discussion: """
            Reads trials.csv (required), timeline.csv, sweep.csv, trials.json, holders.csv and environment.txt \
            from the run's folder. Writes gnuplot's input (.dat files and vars.gp) and rewrites the parts of the \
            folder's REPORT.md between <!-- table:NAME --> markers (the method, the article's four cases, every \
            cell, the sweep); the prose around them is kept. `make plots` runs this, then the gnuplot scripts.

            A corpus run's folder (corpus.csv, no trials.csv), even one whose run was stopped, gets its \
            corpus-summary.csv and chart data written from corpus.csv's rows; an image server's folder (server.csv, \
            no trials.csv) the chart data of its peak against requests in flight.

            A list-scroll.csv in the folder (bench scenario list-scroll) must hold rows of one setting: its chart \
            draws them together.

            Exit status: 0 done; 64 bad command-line input; 65 a file is malformed (trials.csv: a missing column or \
            an impossible figure, named), a scenario CSV mixes settings, or the report has a marker this command \
            does not compute (the committed results/REPORT.md: `make reference` regenerates it); 66 trials.csv is \
            missing; 73 an output cannot be written (a folder where the report goes, a FIFO nobody reads, a full \
            disk). A --report-file that is a symlink has its target rewritten; /dev/null or a FIFO being read gets \
            the report written through.
            """
    )

    @Option(help: "The run's folder, with trials.csv and the other results.")
    var results = "runs/latest"

    @Option(help: "Folder for the chart data (default: <results>/charts/data).")
    var dataOut: String?

    @Option(help: "The report to regenerate (default: <results>/REPORT.md); created from a skeleton if missing.")
    var reportFile: String?

    @Flag(help: "Only write the chart data; leave the report alone.")
    var noReport = false

    func run() throws {
        let folder = URL(fileURLWithPath: results, isDirectory: true)
        // A corpus run's folder (stopped or not): its summary and chart data from corpus.csv's rows.
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent(TrialsCSV.fileName).path),
            CorpusFolder.isCorpusFolder(folder)
        {
            do {
                let written = try CorpusFolder.finish(folder)
                print(
                    "wrote \(written.map(\.path).joined(separator: ", ")) from \(folder.appendingPathComponent(CorpusFolder.rowsFile).path)"
                )
                return
            } catch let error as AtomicFile.WriteError {
                throw BenchFailure(.cannotCreateOutput, error.description).reported()
            } catch {
                throw BenchFailure(.badInput, "\(folder.appendingPathComponent(CorpusFolder.rowsFile).path): \(error)")
                    .reported()
            }
        }
        // An image server's folder: its chart data from server.csv's rows.
        let serverFile = folder.appendingPathComponent(ServerCSV.fileName)
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent(TrialsCSV.fileName).path),
            FileManager.default.fileExists(atPath: serverFile.path)
        {
            try writeServerChartData(from: serverFile, in: folder)
            return
        }
        let report = RunFolderReport(directory: folder)
        if dataOut == nil {
            do { try RunFolderLink.replaceChartFolders(in: folder) } catch {
                throw BenchFailure(.cannotCreateOutput, "\(error)").reported()
            }
        }
        let dataFolder = URL(
            fileURLWithPath: dataOut ?? folder.appendingPathComponent("charts/data").path,
            isDirectory: true
        )
        let reportURL = URL(fileURLWithPath: reportFile ?? folder.appendingPathComponent("REPORT.md").path)
        do {
            let figures = try report.load()
            try ListScrollCSV.checkOneSetting(in: folder)
            try Self.refuseReferenceReport(folder.appendingPathComponent("REPORT.md"), blocks: figures.blocks())
            // The report first: a --report-file that cannot be written (a folder, a FIFO nobody reads)
            // is refused before any chart data is written.
            if !noReport {
                try RunFolderReport.update(at: reportURL, blocks: figures.blocks(), values: [:])
                print("regenerated the tables of \(reportURL.path)")
            }
            let files = RunFolderReport.chartFiles(
                figures,
                holders: try report.holdersChart(),
                residency: try report.residencyChart()
            )
            let written = try RunFolderReport.writeChartData(files, to: dataFolder)
            print("wrote \(written.count) chart data files to \(dataFolder.path)")
        } catch let error as ReportError {
            throw BenchFailure(error.isMissingInput ? .noInput : .badInput, error.description).reported()
        } catch let error as ScenarioError {
            throw BenchFailure(.badInput, error.description).reported()
        } catch let error as AtomicFile.WriteError {
            throw BenchFailure(.cannotCreateOutput, error.description).reported()
        }
    }

    /// The image server's chart (peak against requests in flight, throughput against peak) from server.csv.
    private func writeServerChartData(from file: URL, in folder: URL) throws {
        let (header, rows): ([String], [[String: String]])
        do {
            (header, rows) = try ServerCSV.rowsByName(String(decoding: try Data(contentsOf: file), as: UTF8.self))
        } catch {
            throw BenchFailure(.badInput, "\(file.path) is not readable CSV: \(error)").reported()
        }
        guard ServerCSV.keyColumns.allSatisfy(header.contains) else {
            throw BenchFailure(
                .badInput,
                "\(file.path) is not an image server's server.csv (its columns: \(ServerCSV.keyColumns.joined(separator: ", ")))"
            ).reported()
        }
        let dataFolder = URL(fileURLWithPath: dataOut ?? folder.appendingPathComponent("charts/data").path)
        do {
            if dataOut == nil { try RunFolderLink.replaceChartFolders(in: folder) }
            let written = try RunFolderReport.writeChartData(ServerChartData.files(rows), to: dataFolder)
            print("wrote \(written.count) chart data files to \(dataFolder.path) from \(file.path)")
        } catch let error as AtomicFile.WriteError {
            throw BenchFailure(.cannotCreateOutput, error.description).reported()
        } catch {
            throw BenchFailure(.cannotCreateOutput, "\(error)").reported()
        }
    }

    /// A folder whose REPORT.md has figures this command does not compute is the committed reference
    /// (results/: bench-reference regenerates it): refused before anything is written there, with
    /// --no-report or another --report-file too, which would otherwise still rewrite its chart data.
    static func refuseReferenceReport(_ url: URL, blocks: [String: String]) throws {
        guard SafeFile.kind(at: url.path) == .regularFile, let text = try? String(contentsOf: url, encoding: .utf8)
        else { return }
        do { _ = try GeneratedSections.apply(to: text, blocks: blocks, values: [:]) } catch {
            throw BenchFailure(
                .badInput,
                "\(url.path) has figures `bench report` does not compute (\(error)): it is the committed "
                    + "reference's report, which `make reference` regenerates; nothing written. Point --results at a run's "
                    + "folder (runs/<UTC time>/)"
            ).reported()
        }
    }
}
