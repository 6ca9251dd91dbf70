import BenchCore
import Foundation
import Harness
import Report

/// What `bench run` measures: a plan of cells over one image source.
package struct RunRequest {
    /// The plan, the trials' settings and what settings.json, shard.json and trials.json record of them.
    package let record: SettingsRecord
    package var source: ImageSource
    /// With --url: the measured URL, whose payload is recorded and checked on --resume.
    package var measuredURL: URL?
    package var output: MeasurementOutput
    package var launcher: any TrialLauncher
    package var stop: any StopRequest = SignalStop()
    package var command = GivenArguments.current.joined(separator: " ")

    package init(
        plan: BenchmarkPlan,
        source: ImageSource,
        sourceAsGiven: SettingsRecord.RunSource,
        settings: TrialSettings,
        exactHeap: Bool,
        measuredURL: URL?,
        output: MeasurementOutput,
        launcher: any TrialLauncher
    ) {
        self.record = SettingsRecord(
            source: .run(sourceAsGiven),
            plan: plan,
            trial: settings,
            shard: plan.shard,
            exactHeap: exactHeap
        )
        self.source = source
        self.measuredURL = measuredURL
        self.output = output
        self.launcher = launcher
    }

    package var plan: BenchmarkPlan { record.plan }
    package var settings: TrialSettings { record.trial }
}

/// `bench run`'s measurement: the plan's trials in fresh children, each row appended to trials.csv
/// (with its samples and holders) as it ends, a resumed run measuring only what is missing; at the
/// end the summary, trials.json, holders.folded and environment.txt, and the tables on stdout.
package struct RunMeasurement {
    package let request: RunRequest

    package init(_ request: RunRequest) { self.request = request }

    package func run() throws {
        AllocatorEnvironment.warnIfSet(record: "recorded in trials.json")
        let plan = request.plan
        let planned = plan.schedule()
        let payloadRecorded =
            try request.output.resuming
            ? request.measuredURL.map { try URLPayload.checkResume($0, out: request.output.out ?? "") } ?? [] : []
        let measurement = try Measurement(
            .run,
            request.output,
            settings: request.record.resumeSettings + payloadRecorded,
            stop: request.stop
        )
        try measurement.startShard(
            plan.shard,
            .run,
            settings: request.record.mergeSettings,
            portion: (Set(planned.map(\.cell)).count, plan.cells.count, "cells"),
            planned: PlannedKeys(planned.map { PlannedKeys.key(cell: $0.cell, run: $0.run) })
        )
        let earlier = try rowsDone(measurement)
        let done = Set(earlier.map { RunKey(cell: $0.cell, run: $0.run) })
        let schedule = planned.filter { !done.contains(RunKey(cell: $0.cell, run: $0.run)) }
        if measurement.resuming {
            measurement.sayResuming(done: earlier.count, planned: planned.count, toGo: schedule.count)
        }
        measurement.warnIfOversubscribed()
        let writer = ResultsWriter(rescuing: measurement.sink)
        let results = try earlier + measure(schedule, earlier: earlier.count, in: measurement, writer: writer)
        try writer.writeAll(results, context: context(results, stop: measurement.stop))
        printTables(results)
        let failed = results.filter { !$0.isSuccess }
        for failure in failed {
            printError("run failed: \(failure.cell) run \(failure.run): \(failure.status.rawValue): \(failure.error)")
        }
        try measurement.end(
            rows: results.count,
            planned: planned.count,
            written: writer.writtenFiles,
            failed: !failed.isEmpty
        )
    }

    /// The trials of `schedule`, each row appended as it ends; none when a resumed run is complete.
    private func measure(
        _ schedule: [(cell: TrialCell, run: Int)],
        earlier: Int,
        in measurement: Measurement,
        writer: ResultsWriter
    ) throws -> [TrialResult] {
        let folder = measurement.folder.directory
        if measurement.resuming && schedule.isEmpty {
            printError(
                "every planned run is already in \(measurement.url(of: OutputFiles.trials).path); "
                    + "writing the summary, trials.json and holders from the folder's files"
            )
            return []
        }
        if measurement.resuming {
            // What a stop by a signal wrote at its end counts fewer rows than trials.csv will: gone
            // until the end rewrites them, so that the folder reads as one run at any moment.
            for file in [OutputFiles.summary, OutputFiles.trialsJSON] { unlink(measurement.url(of: file).path) }
        }
        writer.startRows(resuming: measurement.resuming)
        let runner = BenchmarkRunner(
            plan: request.plan,
            source: request.source,
            settings: request.settings,
            launcher: TrialLauncherOverride.launcher ?? request.launcher,
            jobs: measurement.output.jobs
        )
        let progress = ProgressLine(alreadyDone: earlier)
        defer { progress.finish() }
        var measured = 0
        var payloadRecorded = false
        let stop = measurement.stop
        do {
            return try runner.run(
                schedule,
                onResult: { latest, _, _ in
                    writer.appendRow(latest)
                    measured += 1
                    if !payloadRecorded, latest.isSuccess, let url = request.measuredURL {
                        payloadRecorded = true
                        URLPayload.record(url, in: folder)
                    }
                    progress.show(latest, index: earlier + measured, total: request.plan.schedule().count)
                },
                shouldStop: { stop.requested }
            )
        } catch {
            throw BenchFailure(.internalError, "cannot start the benchmark: \(error)")
        }
    }

    /// The trials an interrupted run left in its folder, rebuilt from its appended files (each torn
    /// last line dropped, with a note) with their samples and holders; holders.csv loses the rows
    /// of trials trials.csv lacks, which are measured again. A row twice, or a row of another run
    /// than settings.json's, is refused (65). None for a new run.
    private func rowsDone(_ measurement: Measurement) throws -> [TrialResult] {
        guard measurement.resuming else { return [] }
        do {
            // Not TrialsFile.load: trials.json of the stop before may count fewer rows, and is rewritten at the end.
            let trials = try RunFiles.load(
                measurement.folder.directory,
                runID: measurement.runID,
                holderThresholdBytes: request.settings.holderThresholdBytes
            )
            try RunFiles.dropHoldersOfUnrecordedRuns(in: measurement.folder.directory, keeping: trials)
            return trials
        } catch {
            throw BenchFailure(.badInput, "--resume: \(error)")
        }
    }

    /// trials.json's context: how the rows were taken.
    private func context(_ results: [TrialResult], stop: any StopRequest) -> RunContext {
        var context = RunContext(
            command: request.command,
            source: request.record.sourceDescription ?? "",
            payloadBytes: results.compactMap(\.payloadBytes).max(),
            runsPerCell: request.plan.runs,
            sampleIntervalNanos: request.settings.sampleIntervalNanos
        )
        context.plannedRuns = request.plan.schedule().count
        context.shard = request.plan.shard?.description
        context.completedRuns = results.count
        context.interruptedBy = stop.signalName
        context.jobs = request.output.jobs
        context.provenance = Measurement.provenance
        let allocatorSettings = AllocatorEnvironment.settings()
        context.allocatorEnvironment = allocatorSettings.isEmpty ? nil : allocatorSettings
        return context
    }

    /// The cells ranked, the payload copies and the holders, on stdout.
    private func printTables(_ results: [TrialResult]) {
        let summaries = CellSummary.rankedByPeakRSSDelta(CellSummary.summarize(results))
        print("Cells ranked by median peak RSS delta, smallest first.")
        print(SummaryTable.render(summaries))
        print(PayloadCopiesTable.render(summaries))
        let holders = HoldersTable.render(results, cells: summaries.map(\.cell))
        if !holders.isEmpty { print(holders) }
        let residency = ResidencyTable.render(results, cells: summaries.map(\.cell))
        if !residency.isEmpty { print(residency) }
        let floors = FloorTable.render(results, cells: summaries.map(\.cell))
        if !floors.isEmpty { print(floors) }
    }
}
