import BenchCore
import Foundation

/// Reads one run's folder and writes what is derived from it: the chart data that the gnuplot
/// scripts draw and the tables of the run's REPORT.md (`bench report`).
package struct RunFolderReport: ResultsFolder {
    package var directory: URL

    package init(directory: URL) {
        self.directory = directory
    }

    /// trials.csv is required; the timeline, sweep, context and environment are used when present.
    package func load() throws -> RunFigures {
        guard FileManager.default.fileExists(atPath: trialsCSV.path) else {
            throw ReportError.missing(
                path: trialsCSV.path,
                hint: "run `make bench` (or `bench run --out \(directory.path)`) first"
            )
        }
        let trials = try parse(trialsCSV) { try TrialsFile.parseDroppingTornLine($0, path: trialsCSV.path) }
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
        return RunFigures(
            chart: ChartData(trials: trials, timelines: timelines, sweep: sweep),
            context: context,
            environment: environment
        )
    }

    /// The stacked bars of the holders chart from the first of `files` that exists (the run's own
    /// holders.csv by default).
    package func holdersChart(from files: [URL]? = nil) throws -> HoldersChart? {
        for file in files ?? [directory.appendingPathComponent(HoldersCSV.fileName)]
        where FileManager.default.fileExists(atPath: file.path) {
            return HoldersChart(runs: try parse(file) { try HoldersCSV.parse($0) })
        }
        return nil
    }

    /// The `.dat` files and `vars.gp` of a run: its chart data and, with holders, holders.dat; with
    /// residency, residency.dat.
    package static func chartFiles(
        _ figures: RunFigures,
        holders: HoldersChart?,
        residency: ResidencyChart? = nil
    ) -> [String: String] {
        var files = figures.chart.files()
        if let table = holders?.table() { files["holders.dat"] = table }
        if let table = residency?.table() { files["residency.dat"] = table }
        return files
    }

    /// Every name chart data is written under (a run's, the holders', the reference's encodings).
    package static let chartFileNames: Set = [
        "article.dat", "matrix.dat", "timeline.dat", "timeline_marks.dat",
        "sweep.dat", "holders.dat", "residency.dat", "encodings.dat", "vars.gp", "server.dat", "server_vars.gp",
    ]

    /// Writes `files` into `folder`, removing stale chart files this run did not write (a sweep.dat
    /// left from an older sweep.csv would be drawn as if it were current). Only those names: the
    /// folder may be any --data-out, and other files in it are not ours.
    @discardableResult
    package static func writeChartData(_ files: [String: String], to folder: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for stale in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where chartFileNames.contains(stale) && files[stale] == nil {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(stale))
        }
        return try files.keys.sorted().map { name in
            let url = folder.appendingPathComponent(name)
            try AtomicFile.write(files[name]!, to: url)
            return url
        }
    }

    /// Regenerates the marked parts of the document at `url` from `blocks` and `values`; a missing
    /// document is started from the run report's skeleton.
    package static func update(at url: URL, blocks: [String: String], values: [String: String]) throws {
        // Only a regular file is read: a FIFO would wait for a writer, a device has no report in it.
        let existing =
            SafeFile.kind(at: url.path) == .regularFile
            ? (try? String(contentsOf: url, encoding: .utf8)) ?? skeleton : skeleton
        let updated = try GeneratedSections.apply(to: existing, blocks: blocks, values: values)
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

    /// `body` over the text of `url`, its failures named as the report's errors.
    package func parse<T>(_ url: URL, _ body: (String) throws -> T) throws -> T {
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
