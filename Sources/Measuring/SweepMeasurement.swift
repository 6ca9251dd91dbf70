import BenchCore
import Foundation
import Harness
import Imaging
import Report

/// What `bench sweep` measures: one plan on fixtures of several payload sizes.
package struct SweepRequest {
    /// The plan, the sizes, the trials' settings and what settings.json records of them.
    package let record: SettingsRecord
    /// Payload sizes to aim for, in MB (10^6 bytes).
    package let sizesMB: [Double]
    package var output: MeasurementOutput
    package var launcher: any TrialLauncher = ChildProcessLauncher()
    package var stop: any StopRequest = SignalStop()

    package init(plan: BenchmarkPlan, sizesMB: [Double], settings: TrialSettings, output: MeasurementOutput) {
        self.record = SettingsRecord(source: .sweep(sizesMB: sizesMB), plan: plan, trial: settings, shard: nil)
        self.sizesMB = sizesMB
        self.output = output
    }

    package var plan: BenchmarkPlan { record.plan }
    package var settings: TrialSettings { record.trial }
}

/// `bench sweep`'s measurement: for each size a fixture, its own server and runner, each row
/// appended to sweep.csv as it ends (a resumed sweep measures only the (size, cell, run) missing),
/// then each strategy's fitted slope on stdout.
package struct SweepMeasurement {
    package let request: SweepRequest

    package init(_ request: SweepRequest) { self.request = request }

    package func run() throws {
        AllocatorEnvironment.warnIfSet(record: "not recorded in sweep.csv")
        let measurement = try Measurement(
            .sweep,
            request.output,
            settings: request.record.resumeSettings,
            stop: request.stop
        )
        let steps = try self.steps()
        let planned = request.plan.schedule().count * steps.count
        var rows = try rowsDone(measurement)
        let done = Set(rows.map { "\($0.step.targetBytes) \($0.result.cell) \($0.result.run)" })
        let earlier = rows.count
        if measurement.resuming {
            measurement.sayResuming(done: earlier, planned: planned, toGo: planned - done.count)
        }
        let progress = ProgressLine(alreadyDone: earlier)
        measurement.warnIfOversubscribed()
        let sink = measurement.sink
        let complete = measurement.resuming && done.count >= planned
        if complete {
            printError(
                "every planned run is already in \(measurement.url(of: OutputFiles.sweep).path); nothing to measure"
            )
        } else {
            sink.startRows(
                OutputFiles.sweep.name,
                header: SweepCSV.stepColumns + TrialsCSV.header(runID: measurement.runID),
                resuming: measurement.resuming
            )
        }
        let stop = measurement.stop
        for step in steps where !stop.requested && !complete {
            let schedule = request.plan.schedule().filter { !done.contains("\(step.targetBytes) \($0.cell) \($0.run)") }
            guard !schedule.isEmpty else { continue }
            // A runner per size: its own fixture and server, children as isolated as in `bench run`.
            let runner = BenchmarkRunner(
                plan: request.plan,
                source: .embedded(fixture: step.fixture, bandwidthBytesPerSecond: nil),
                settings: request.settings,
                launcher: TrialLauncherOverride.launcher ?? request.launcher,
                jobs: request.output.jobs
            )
            do {
                _ = try runner.run(
                    schedule,
                    onResult: { latest, _, _ in
                        rows.append((step, latest))
                        progress.show(latest, index: rows.count, total: planned)
                        let stepFields = [step.targetBytes, step.width, step.height].map(String.init)
                        sink.append(
                            OutputFiles.sweep.name,
                            lines: CSV.line(stepFields) + "," + TrialsCSV.line(latest, runID: measurement.runID)
                        )
                    },
                    shouldStop: { stop.requested }
                )
            } catch {
                progress.finish()
                throw BenchFailure(.internalError, "cannot measure the \(step.width)x\(step.height) fixture: \(error)")
            }
        }
        progress.finish()
        sink.finishRows()
        // The whole file once more only when appending failed (into the rescue folder).
        let written =
            (sink.rowsAppended
                ? [measurement.url(of: OutputFiles.sweep)]
                : sink.write(
                    [(OutputFiles.sweep.name, Data(SweepCSV.render(rows, runID: measurement.runID).utf8))],
                    final: true
                ))
            + sink.write([Measurement.environmentFile], final: true)
        printSlopes(rows)
        let failed = rows.filter { !$0.result.isSuccess }
        for (step, failure) in failed {
            printError(
                "run failed: \(failure.cell) at \(step.width)x\(step.height) run \(failure.run): \(failure.status.rawValue): \(failure.error)"
            )
        }
        try measurement.end(rows: rows.count, planned: planned, written: written, failed: !failed.isEmpty)
    }

    /// The fixtures, one per size, smallest first.
    private func steps() throws -> [SweepStep] {
        do {
            let bytesPerPixel = try Self.articleBytesPerPixel(cache: request.settings.fixtureCacheDirectory)
            return request.sizesMB.sorted().map { Self.step(targetBytes: Int($0 * 1e6), bytesPerPixel: bytesPerPixel) }
        } catch {
            throw BenchFailure(.internalError, "cannot make the article's fixture to size the others: \(error)")
        }
    }

    /// The rows sweep.csv holds already when resuming (a torn last line dropped, with a note).
    private func rowsDone(_ measurement: Measurement) throws -> [(step: SweepStep, result: TrialResult)] {
        let file = measurement.url(of: OutputFiles.sweep)
        guard measurement.resuming, let data = FileManager.default.contents(atPath: file.path), !data.isEmpty else {
            return []
        }
        do {
            let (text, torn) = CSV.completeLines(String(decoding: data, as: UTF8.self))
            if torn { StandardError.write(CSV.tornLineNote(file.path)) }
            return try SweepCSV.parse(text, runID: (measurement.runID, RunSettings.fileName))
        } catch {
            throw BenchFailure(.badInput, "--resume: \(file.path) cannot be read back: \(error)")
        }
    }

    /// Each series' slope and its points, on stdout.
    private func printSlopes(_ rows: [(step: SweepStep, result: TrialResult)]) {
        let sweep = ChartData(trials: [], timelines: [:], sweep: rows).sweep
        for series in sweep {
            let slope = series.fit.map { String(format: "%.2f bytes held per payload byte", $0.slope) } ?? "no fit"
            print(
                "\(series.title(among: sweep)): \(slope); "
                    + series.points.map {
                        String(format: "%.1f MB -> %.1f MB", $0.payloadBytes / 1e6, $0.peakRSSDelta.median / 1e6)
                    }.joined(separator: ", ")
            )
        }
    }

    /// Bytes per pixel of the article's fixture: the generator's grain makes JPEG size close to
    /// proportional to the pixel count, so this one ratio sizes every other fixture.
    package static func articleBytesPerPixel(cache: URL) throws -> Double {
        let file = try FixtureGenerator.cachedFixture(.article, in: cache)
        let bytes = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
        return Double(bytes?.intValue ?? 0) / Double(FixtureSpec.article.width * FixtureSpec.article.height)
    }

    /// A 3:2 fixture of about `targetBytes`, sides rounded to whole 16-pixel MCUs.
    package static func step(targetBytes: Int, bytesPerPixel: Double) -> SweepStep {
        let pixels = Double(targetBytes) / bytesPerPixel
        let height = max(16, Int((pixels / 1.5).squareRoot() / 16 + 0.5) * 16)
        let width = max(16, Int(Double(height) * 1.5 / 16 + 0.5) * 16)
        return SweepStep(targetBytes: targetBytes, width: width, height: height)
    }
}

extension SweepStep {
    /// The article's fixture parameters (quality, seed, baseline) at this step's size.
    package var fixture: FixtureSpec {
        var spec = FixtureSpec.article
        spec.width = width
        spec.height = height
        return spec
    }
}
