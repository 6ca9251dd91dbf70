import BenchCore
import Foundation
import Report

/// Reads the committed reference folder (results/) and regenerates this repository's documents
/// from it: the chart data, REPORT.md's tables and quoted numbers, and README.md's figures.
/// A run's own folder needs only `RunFolderReport`, which this builds on.
package struct ResultsReport: ResultsFolder {
    package var directory: URL

    package init(directory: URL) {
        self.directory = directory
    }

    private var run: RunFolderReport { RunFolderReport(directory: directory) }

    /// The run's figures (trials.csv required) and every committed study the folder holds.
    package func load() throws -> ReportFigures {
        let runFigures = try run.load()
        let coldWarm = try ColdWarmComparison.load(from: coldWarmFolder) { url in
            try run.parse(url) { try TrialsCSV.parse($0) }
        }
        var validation: [[String: Double]]?
        if FileManager.default.fileExists(atPath: validationCSV.path) {
            validation = try run.parse(validationCSV) { text in
                let rows = try CSV.parse(text).filter { $0 != [""] }
                guard let header = rows.first else { return [] }
                return rows.dropFirst().map { fields in
                    Dictionary(
                        zip(header, fields).compactMap { name, field in Double(field).map { (name, $0) } },
                        uniquingKeysWith: { first, _ in first }
                    )
                }
            }
        }
        var figures = ReportFigures(
            chart: runFigures.chart,
            context: runFigures.context,
            environment: runFigures.environment,
            coldWarm: coldWarm,
            validation: validation
        )
        do {
            let settings = try RunSettings.read(from: directory)
            figures.maxPixel = settings?.maxPixel
            figures.settle = settings?.value(of: TrialSpec.settleEnvironmentVariable)
        } catch {
            throw ReportError.malformed(
                path: directory.appendingPathComponent(RunSettings.fileName).path,
                problem: error
            )
        }
        figures.corpusAndJobs = try CorpusAndJobsFigures.load(from: directory)
        figures.example = try ExampleComparison.load(from: directory.appendingPathComponent("example")) { url in
            try run.parse(url) { try TrialsCSV.parse($0) }
        }
        figures.overhead = try OverheadFigures.load(from: directory)
        figures.server = try ServerFigures.load(from: directory)
        figures.predictedCost = try CSVRows.load(directory.appendingPathComponent(TrialsCSV.fileName)).map {
            // The matrix's --max-pixel, or run's default when its settings.json does not say.
            PredictedCostFigures.from(trials: $0.rows, maxPixel: figures.maxPixel ?? 1024)
        }
        figures.provenance = try ReferenceProvenance.load(from: directory)
        figures.holders = try HolderFigures.load(from: directory.appendingPathComponent(HolderFigures.folderName))
        // The chart's holders: the folder's own holders.csv, else the holders run's (results/holders/).
        figures.holdersChart = try run.holdersChart(from: [
            directory.appendingPathComponent(HoldersCSV.fileName),
            directory.appendingPathComponent(HolderFigures.folderName).appendingPathComponent(HoldersCSV.fileName),
        ])
        figures.residencyChart = try run.residencyChart(from: [
            directory, directory.appendingPathComponent(HolderFigures.folderName),
        ])
        let encodingsCSV = directory.appendingPathComponent(EncodingCosts.fileName)
        if FileManager.default.fileExists(atPath: encodingsCSV.path) {
            figures.encodings = try run.parse(encodingsCSV) { try EncodingCosts.parse($0) }
        }
        figures.encodingBreakdown = try EncodingBreakdown.load(from: directory)
        let decodeTimeCSV = directory.appendingPathComponent(DecodeTime.fileName)
        if FileManager.default.fileExists(atPath: decodeTimeCSV.path) {
            figures.decodeTime = try run.parse(decodeTimeCSV) { try DecodeTime.parse($0) }
        }
        let decodeStagesCSV = directory.appendingPathComponent(DecodeStages.fileName)
        if FileManager.default.fileExists(atPath: decodeStagesCSV.path) {
            figures.decodeStages = try run.parse(decodeStagesCSV) { try DecodeStages.parse($0) }
        }
        let residencyCostCSV = directory.appendingPathComponent(ResidencyCost.fileName)
        if FileManager.default.fileExists(atPath: residencyCostCSV.path) {
            figures.residencyCost = try run.parse(residencyCostCSV) { try ResidencyCost.parse($0) }
        }
        return figures
    }

    /// Writes the `.dat` files and `vars.gp` into `folder` (the run's, holders.dat and encodings.dat).
    @discardableResult
    package func writeChartData(_ figures: ReportFigures, to folder: URL) throws -> [URL] {
        var files = RunFolderReport.chartFiles(
            figures.run,
            holders: figures.holdersChart,
            residency: figures.residencyChart
        )
        if let encodings = figures.encodings { files["encodings.dat"] = encodings.chartData() }
        files.merge(figures.server.chartFiles()) { ours, _ in ours }
        return try RunFolderReport.writeChartData(files, to: folder)
    }

    /// Regenerates the marked parts of the document at `url` (REPORT.md or README.md).
    /// `extraBlocks`: blocks that come from the code rather than results/ (docs/OUTPUT.md's table of files).
    package func updateReport(_ figures: ReportFigures, at url: URL, extraBlocks: [String: String] = [:]) throws {
        try RunFolderReport.update(
            at: url,
            blocks: figures.blocks().merging(extraBlocks) { $1 },
            values: figures.values()
        )
    }
}
