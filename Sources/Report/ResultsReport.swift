import Foundation
import BenchCore

/// Reads a results folder and regenerates what is derived from it: the chart data that the
/// gnuplot scripts draw, and the tables and quoted numbers of REPORT.md.
public struct ResultsReport: ResultsFolder {
    public var directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// trials.csv is required; the timeline, sweep, context and environment are used when present.
    public func load() throws -> ReportFigures {
        guard FileManager.default.fileExists(atPath: trialsCSV.path) else {
            throw ReportError.missing(path: trialsCSV.path, hint: "run `make bench` (or `bench run --out \(directory.path)`) first")
        }
        let trials = try parse(trialsCSV) { try TrialsCSV.parse($0) }
        guard !trials.isEmpty else { throw ReportError.noRows(path: trialsCSV.path) }
        // trials.csv, timeline.csv and trials.json must be one run's (same run id, same row count).
        do { try RunConsistency.check(self) } catch { throw ReportError.inconsistentRun(error) }

        var timelines: [RunKey: [TimelinePoint]] = [:]
        if FileManager.default.fileExists(atPath: timelineCSV.path) {
            let keys = TimelineRun.keys(for: trials)
            timelines = try parse(timelineCSV) { try TimelineCSV.parse($0, keep: keys) }
        }
        var sweep: [(step: SweepStep, result: TrialResult)] = []
        if FileManager.default.fileExists(atPath: sweepCSV.path) {
            sweep = try parse(sweepCSV) { try SweepCSV.parse($0) }
        }
        var context: RunContext?
        if let json = try? Data(contentsOf: trialsJSON) {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            context = try? decoder.decode(JSONExport.self, from: json).context
        }
        let environment = try? String(contentsOf: environmentText, encoding: .utf8)
        let coldWarm = try ColdWarmComparison.load(from: coldWarmFolder) { url in try parse(url) { try TrialsCSV.parse($0) } }
        var validation: [[String: Double]]?
        if FileManager.default.fileExists(atPath: validationCSV.path) {
            validation = try parse(validationCSV) { text in
                let rows = try CSV.parse(text).filter { $0 != [""] }
                guard let header = rows.first else { return [] }
                return rows.dropFirst().map { fields in
                    Dictionary(zip(header, fields).compactMap { name, field in Double(field).map { (name, $0) } },
                               uniquingKeysWith: { first, _ in first })
                }
            }
        }
        var figures = ReportFigures(chart: ChartData(trials: trials, timelines: timelines, sweep: sweep),
                                    context: context, environment: environment, coldWarm: coldWarm, validation: validation)
        figures.corpusAndJobs = try CorpusAndJobsFigures.load(from: directory)
        figures.example = try ExampleComparison.load(from: directory.appendingPathComponent("example")) { url in
            try parse(url) { try TrialsCSV.parse($0) }
        }
        figures.overhead = try OverheadFigures.load(from: directory)
        figures.holders = try HolderFigures.load(from: directory.appendingPathComponent(HolderFigures.folderName))
        // The chart's holders: the run's own holders.csv, else the holders run's (results/holders/).
        for file in [directory.appendingPathComponent("holders.csv"),
                     directory.appendingPathComponent(HolderFigures.folderName).appendingPathComponent("holders.csv")]
        where figures.holdersChart == nil && FileManager.default.fileExists(atPath: file.path) {
            figures.holdersChart = HoldersChart(runs: try parse(file) { try HoldersCSV.parse($0) })
        }
        let encodingsCSV = directory.appendingPathComponent(EncodingCosts.fileName)
        if FileManager.default.fileExists(atPath: encodingsCSV.path) {
            figures.encodings = try parse(encodingsCSV) { try EncodingCosts.parse($0) }
        }
        return figures
    }

    /// Writes the `.dat` files and `vars.gp` into `folder`, removing stale ones this run did not write
    /// (a sweep.dat left from an older sweep.csv would be drawn as if it were current).
    @discardableResult
    public func writeChartData(_ figures: ReportFigures, to folder: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files = figures.chart.files()
        if let encodings = figures.encodings { files["encodings.dat"] = encodings.chartData() }
        if let holders = figures.holdersChart?.table() { files["holders.dat"] = holders }
        for stale in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where (stale.hasSuffix(".dat") || stale == "vars.gp") && files[stale] == nil {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(stale))
        }
        return try files.keys.sorted().map { name in
            let url = folder.appendingPathComponent(name)
            try AtomicFile.write(files[name]!, to: url)
            return url
        }
    }

    /// Regenerates the marked parts of the report at `url`; a missing report is started from a skeleton.
    public func updateReport(_ figures: ReportFigures, at url: URL) throws {
        // Only a regular file is read: a FIFO would wait for a writer, a device has no report in it.
        let existing = SafeFile.kind(at: url.path) == .regularFile
            ? (try? String(contentsOf: url, encoding: .utf8)) ?? Self.skeleton : Self.skeleton
        let updated = try GeneratedSections.apply(to: existing, blocks: figures.blocks(), values: figures.values())
        if updated != existing { try AtomicFile.write(updated, to: url) }
    }

    /// Only the generated parts: the prose that explains them is written by a person.
    static let skeleton = """
        # Results

        ## Method
        <!-- table:method --><!-- /table:method -->

        ## The article's four cases
        <!-- table:article --><!-- /table:article -->

        ## Every strategy and renderer
        <!-- table:matrix --><!-- /table:matrix -->

        ## Payload-size sweep
        <!-- table:sweep-sizes --><!-- /table:sweep-sizes -->

        <!-- table:sweep --><!-- /table:sweep -->

        """

    private func parse<T>(_ url: URL, _ body: (String) throws -> T) throws -> T {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ReportError.unreadable(path: url.path, reason: error.localizedDescription)
        }
        do {
            return try body(text)
        } catch {
            throw ReportError.malformed(path: url.path, problem: error)
        }
    }
}
