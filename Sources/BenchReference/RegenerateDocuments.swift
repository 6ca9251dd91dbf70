import ArgumentParser
import BenchCore
import Foundation
import Measuring
import ReferenceDocuments
import Report
import Scenarios

/// `bench-reference documents` (the default): regenerates the committed documents (results/REPORT.md,
/// results/SCENARIO.md, README.md's figures) and their chart data from the committed results.
/// `make reference` runs it (through scripts/plots.sh).
struct RegenerateDocuments: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "documents",
        abstract: "Regenerate this repository's documents (REPORT.md, SCENARIO.md, README.md's figures) from results/.",
        discussion: """
            Reads the committed reference folder: trials.csv (required), timeline.csv, sweep.csv, trials.json, \
            environment.txt, and the studies beside them (cold-warm/, example/, holders/, corpus/, jobs/, \
            encodings.csv, validation.csv, the list-scroll CSVs). Writes gnuplot's input and rewrites the parts of \
            the documents between <!-- table:NAME --> and <!-- value:NAME --> markers; the prose around them is kept.

            Exit status: 0 done; 64 bad command-line input; 65 a file is malformed (named) or a document has a \
            marker nothing computes; 66 trials.csv or a --document is missing; 73 an output cannot be written.
            """
    )

    @Option(help: "The committed reference folder.")
    var results = "results"

    @Option(help: "Folder for the chart data (default: <results>/charts/data).")
    var dataOut: String?

    @Option(help: "The report to regenerate (default: <results>/REPORT.md).")
    var reportFile: String?

    @Option(
        help: "Also regenerate the marked figures of this document (README.md, a docs/ file); repeat it for several."
    )
    var document: [String] = []

    func run() throws {
        // Before anything is written: a document that is not there is a mistyped path.
        for path in document where !FileManager.default.fileExists(atPath: path) {
            throw BenchReference.fail(
                .noInput,
                "--document \(path) does not exist; it names a document whose marked figures are regenerated, e.g. README.md"
            )
        }
        for path in document where SafeFile.kind(at: SafeFile.resolved(path)) == .folder {
            throw BenchReference.fail(
                .cannotCreateOutput,
                "--document \(path) is a folder; it names a document whose marked figures are regenerated, e.g. README.md"
            )
        }
        let folder = URL(fileURLWithPath: results, isDirectory: true)
        let report = ResultsReport(directory: folder)
        let dataFolder = URL(
            fileURLWithPath: dataOut ?? folder.appendingPathComponent("charts/data").path,
            isDirectory: true
        )
        let reportURL = URL(fileURLWithPath: reportFile ?? folder.appendingPathComponent("REPORT.md").path)
        do {
            let figures = try report.load()
            try report.updateReport(figures, at: reportURL)
            print("regenerated the tables of \(reportURL.path)")
            let written = try report.writeChartData(figures, to: dataFolder)
            print("wrote \(written.count) chart data files to \(dataFolder.path)")
            if try Self.regenerateScenarioDocument(in: folder) {
                print("regenerated the tables of \(folder.appendingPathComponent("SCENARIO.md").path)")
            }
            for path in document {
                let url = URL(fileURLWithPath: path)
                try report.updateReport(
                    figures,
                    at: url,
                    extraBlocks: OutputFiles.documentBlocks
                )
                print("regenerated the figures of \(url.path)")
            }
        } catch let error as ReportError {
            throw BenchReference.fail(error.isMissingInput ? .noInput : .badInput, error.description)
        } catch let error as ScenarioError {
            throw BenchReference.fail(.badInput, error.description)
        } catch let error as AtomicFile.WriteError {
            throw BenchReference.fail(.cannotCreateOutput, error.description)
        }
    }

    /// SCENARIO.md's generated tables and figures from the folder's list-scroll CSVs; false when the
    /// folder has no SCENARIO.md or no list-scroll.csv.
    static func regenerateScenarioDocument(in folder: URL) throws -> Bool {
        let document = folder.appendingPathComponent("SCENARIO.md")
        guard let text = try? String(contentsOf: document, encoding: .utf8),
            FileManager.default.fileExists(atPath: folder.appendingPathComponent(ScenarioDocument.caps).path)
        else { return false }
        let figures = try ScenarioDocument(folder: folder)
        let updated = try GeneratedSections.apply(to: text, blocks: figures.blocks, values: figures.values)
        if updated != text { try AtomicFile.write(Data(updated.utf8), to: document) }
        return true
    }

}
