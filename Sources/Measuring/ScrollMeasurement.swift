import BenchCore
import Foundation
import Harness
import Report
import Scenarios

/// What `bench scenario list-scroll` measures: each strategy x renderer x cap, `runs` times.
package struct ScrollRequest {
    package var strategies: [ScrollStrategy]
    package var renders: [RenderMode]
    package var caps: [Int]
    package var runs: Int
    /// Every other setting of a scroll; its strategy, renderer and cap are each combination's.
    package var template: ListScrollScenario.Settings
    package var output: MeasurementOutput
    package var stop: any StopRequest = SignalStop()
    /// Runs one scroll in its work folder: the real scroll in a child by default; tests give recorded results.
    package var scroller: (ListScrollScenario.Settings, URL) throws -> ScrollResult = {
        try ListScrollScenario(settings: $0).run(workDirectory: $1)
    }

    package init(
        strategies: [ScrollStrategy],
        renders: [RenderMode],
        caps: [Int],
        runs: Int,
        template: ListScrollScenario.Settings,
        output: MeasurementOutput
    ) {
        self.strategies = strategies
        self.renders = renders
        self.caps = caps
        self.runs = runs
        self.template = template
        self.output = output
    }

    /// Every scroll, in order.
    var scrolls: [ListScrollScenario.Settings] {
        strategies.flatMap { strategy in
            renders.flatMap { render in
                caps.flatMap { cap in
                    (0..<runs).map { _ in
                        var settings = template
                        settings.strategy = strategy
                        settings.render = render
                        settings.maxConcurrent = cap
                        return settings
                    }
                }
            }
        }
    }
}

/// The list scroll's measurement: each scroll in its own child, its row appended to list-scroll.csv
/// as soon as it ends, after the rows earlier invocations left there (into a rescue folder when the
/// folder cannot be written), a line per scroll on stdout. Its folder, lock, signals, rescue and end
/// are `Measurement`'s, as every measuring command's; the folder records its format (settings.json).
package struct ScrollMeasurement {
    package let request: ScrollRequest

    package init(_ request: ScrollRequest) { self.request = request }

    package func run() throws {
        AllocatorEnvironment.warnIfSet(record: "not recorded in \(ListScrollCSV.fileName)")
        // Rows are appended, never replaced: no --replace, no --resume.
        let measurement = try Measurement(appendingTo: .listScroll, out: request.output.out, stop: request.stop)
        let folder = measurement.folder
        let sink = measurement.sink
        let csvName = OutputFiles.listScroll.name
        let csvPath = folder.directory.appendingPathComponent(csvName).path
        let existing = (try? String(contentsOfFile: csvPath, encoding: .utf8)) ?? ""
        do { try ListScrollCSV.checkAppendable(existing, path: csvPath) } catch {
            throw BenchFailure(.cannotCreateOutput, "\(error)")
        }
        let stop = request.stop
        let scrolls = request.scrolls
        var results: [ScrollResult] = []
        print(ListScrollTable.header)
        for settings in scrolls where !stop.requested {
            let result = try scroll(settings)
            // A child killed because the run was interrupted is not a measurement: no row.
            if stop.requested && result.status != .ok { break }
            results.append(result)
            // The file is opened with the first row: a run that measured nothing claims no file.
            if results.count == 1 { sink.startRows(csvName, header: ListScrollCSV.headerFields, resuming: true) }
            sink.append(csvName, lines: ListScrollCSV.line(result, runID: folder.runID))
            print(ListScrollTable.line(result))
            if result.status != .ok {
                printError(
                    "scenario failed: \(settings.strategy.rawValue)/\(settings.render.rawValue)/cap \(settings.maxConcurrent): "
                        + "\(result.status): \(result.error)"
                )
            }
        }
        sink.finishRows()
        // After a failed write the file is whole only in the rescue folder: the earlier rows and these.
        if !sink.rowsAppended, !results.isEmpty,
            let text = try? ListScrollCSV.appending(results, runID: folder.runID, to: existing, path: csvPath)
        {
            sink.write([(csvName, Data(text.utf8))], final: true)
        }
        if !results.isEmpty { _ = sink.write([Measurement.environmentFile], final: true) }
        sayWhatWasWritten(results, existing: existing, csvPath: csvPath, sink: sink)
        try measurement.end(
            rows: results.count,
            planned: scrolls.count,
            written: [],
            failed: results.contains { $0.status != .ok },
            unit: "scrolls"
        )
    }
    /// One scroll in its child, its scratch removed by a second signal too.
    private func scroll(_ settings: ListScrollScenario.Settings) throws -> ScrollResult {
        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("bench-scenario-\(getpid())-\(UUID().uuidString.prefix(8))")
        Interruption.registerScratch(work)
        defer { Interruption.unregisterScratch(work) }
        do {
            return try request.scroller(settings, work)
        } catch {
            throw BenchFailure(.internalError, "cannot run the scenario: \(error)")
        }
    }

    private func sayWhatWasWritten(_ results: [ScrollResult], existing: String, csvPath: String, sink: RescuingWriter) {
        guard !results.isEmpty else {
            print("no scroll finished: nothing was recorded in \(sink.folder.directory.path)")
            return
        }
        print(
            "wrote \(sink.currentFolder.appendingPathComponent(OutputFiles.listScroll.name).path) (run \(sink.folder.runID))"
        )
        // Appended to rows of other settings: each row says which, but one chart cannot show them together.
        if !existing.isEmpty,
            let text = try? ListScrollCSV.appending(results, runID: sink.folder.runID, to: existing, path: csvPath),
            let groups = try? ListScrollCSV.groups(text, path: csvPath), groups.count > 1
        {
            printError(
                "note: \(csvPath) now holds rows of \(groups.count) different settings (the settings columns tell them apart); "
                    + "its chart (make plots) refuses to mix them"
            )
        }
    }
}
