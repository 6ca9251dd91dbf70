import BenchCore
import Foundation
import Harness
import Imaging
import Report
import Strategies

/// Where a measurement goes: its folder and how to treat what is there.
package struct MeasurementOutput: Sendable {
    /// `--out`, or nil for a new runs/<UTC time>/.
    package var out: String?
    /// `--replace`: an earlier run's files are removed.
    package var replacing = false
    /// `--resume`: go on with the stopped run in `out`.
    package var resuming = false
    /// `--jobs`: children measured at once.
    package var jobs = 1

    package init(out: String?, replacing: Bool = false, resuming: Bool = false, jobs: Int = 1) {
        self.out = out
        self.replacing = replacing
        self.resuming = resuming
        self.jobs = jobs
    }
}

/// What stops a measurement between trials: a signal (SIGINT, SIGTERM, SIGHUP) by default; tests
/// give their own.
package protocol StopRequest: Sendable {
    var requested: Bool { get }
    /// The signal's name ("SIGTERM"), recorded in trials.json and shard.json.
    var signalName: String? { get }
    /// The exit status a stopped measurement ends with (128 + the signal).
    var exitStatus: Int32 { get }
}

/// Ctrl-C, SIGTERM or SIGHUP, caught by `Interruption`.
package struct SignalStop: StopRequest {
    package init() {}
    package var requested: Bool { Interruption.requested }
    package var signalName: String? { Interruption.signalName }
    package var exitStatus: Int32 { Interruption.exitStatus }
}

/// One measurement's life in its folder, whatever it measures: the folder opened (or resumed, with
/// the settings checked), locked and claimed; the settings recorded; the shard recorded; rows written
/// through a writer that rescues them when the folder fails; at the end the shard's end recorded,
/// runs/latest moved, the files named and the exit status. `RunMeasurement`, `SweepMeasurement`,
/// `CorpusMeasurement` and `ScrollMeasurement` (which appends: `init(appendingTo:)`) drive the
/// children and own their rows.
package final class Measurement {
    package let command: MeasuringCommand
    package let folder: OutputFolder
    package let sink: RescuingWriter
    package let output: MeasurementOutput
    package let stop: any StopRequest
    package private(set) var shard: ShardRecord?

    /// Opens the folder (73 unwritable or another's, 75 busy, 64 other settings on --resume) and
    /// records `settings` in settings.json. Signals are caught from here on.
    package convenience init(
        _ command: MeasuringCommand,
        _ output: MeasurementOutput,
        settings: [(String, String)],
        stop: any StopRequest = SignalStop()
    ) throws {
        try self.init(command, output, stop: stop) {
            try MeasurementFolder.open(
                output.out,
                for: command,
                replacing: output.replacing,
                resume: output.resuming,
                settings: settings
            )
        }
    }

    /// Opens the folder of a command that appends its rows after those of earlier invocations with
    /// other settings (list-scroll's list-scroll.csv): no settings to check, no --replace, no
    /// --resume; the folder is still checked and locked (73, 75), its format recorded or checked
    /// (`MeasurementFolder.openAppending`), and signals caught.
    package convenience init(
        appendingTo command: MeasuringCommand,
        out: String?,
        stop: any StopRequest = SignalStop()
    ) throws {
        try self.init(command, MeasurementOutput(out: out), stop: stop) {
            try MeasurementFolder.openAppending(out, for: command)
        }
    }

    /// Every measurement's start: bench's environment settings checked (64, before the folder is
    /// touched), signals caught, then the folder opened by `open`.
    private init(
        _ command: MeasuringCommand,
        _ output: MeasurementOutput,
        stop: any StopRequest,
        opening open: () throws -> OutputFolder
    ) throws {
        try Self.checkEnvironmentSettings()
        Interruption.install()
        self.command = command
        self.output = output
        self.stop = stop
        folder = try open()
        sink = RescuingWriter(folder: folder)
    }

    /// The settings a measurement takes from bench's environment, and their values: any other value
    /// is refused (64) before the folder is touched, rather than taken silently as the default.
    static let environmentSettings = [
        (TrialSpec.settleEnvironmentVariable, TrialSettings.Settle.allCases.map(\.rawValue)),
        (TrialSpec.residencyEnvironmentVariable, TrialSettings.Residency.allCases.map(\.rawValue)),
    ]

    static func checkEnvironmentSettings() throws {
        let environment = ProcessInfo.processInfo.environment
        for (variable, valid) in environmentSettings {
            guard let value = environment[variable], !value.isEmpty, !valid.contains(value) else { continue }
            throw BenchFailure(
                .usage,
                "\(variable)='\(value)' is not one of its settings; valid: \(valid.joined(separator: ", ")) "
                    + "(unset: \(valid[0]))"
            )
        }
    }

    package var runID: String { folder.runID }
    package var resuming: Bool { output.resuming }

    /// The path of one of the measurement's files in its folder.
    package func url(of file: OutputFile) -> URL { folder.directory.appendingPathComponent(file.name) }

    /// environment.txt's name and contents: the binary, machine, OS, toolchain and measured libraries,
    /// as bench reads them (`MachineEnvironment`), its only writer.
    package static var environmentFile: (name: String, contents: Data) {
        (OutputFiles.environment.name, Data(MachineEnvironment.describe(provenance).utf8))
    }

    /// This binary's provenance, collected once per invocation, here where the libraries that only
    /// Imaging and Strategies link can say their versions.
    package static let provenance = Provenance.current(
        libraries: DecoderLibraryVersions.all.merging(["libcurl": CurlVersion.current]) { first, _ in first }
    )

    /// Writes shard.json before the first trial (see `ShardLog.start`).
    package func startShard(
        _ shard: Shard?,
        _ kind: ShardRecord.Kind,
        settings: [String: String],
        portion: (chosen: Int, of: Int, items: String),
        corpus: (entries: Int, digest: String)? = nil,
        planned: PlannedKeys? = nil
    ) throws {
        self.shard = try ShardLog.start(
            shard,
            kind,
            in: folder,
            settings: settings,
            portion: portion,
            corpus: corpus,
            planned: planned
        )
    }

    /// Records the shard's plan once it is known (a corpus knows it after examining every file).
    package func planShard(_ keys: PlannedKeys) throws {
        guard var record = shard else { return }
        record.plan(keys)
        try ShardLog.write(record, in: folder)
        shard = record
    }

    /// "resuming DIR: N of M runs done, K to go" on stderr.
    package func sayResuming(done: Int, planned: Int, toGo: Int, unit: String = "runs", prefix: String = "") {
        printError("\(prefix)resuming \(folder.directory.path): \(done) of \(planned) \(unit) done, \(toGo) to go")
    }

    /// Said once on stderr when more children than cores would share the machine.
    package func warnIfOversubscribed() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        if output.jobs > cores {
            printError(
                "warning: --jobs \(output.jobs) on \(cores) cores: children will wait for CPU; "
                    + "peaks stay comparable, times do not"
            )
        }
    }

    /// The end: the shard's end recorded, runs/latest pointed here when the folder holds the files,
    /// where they are said, and the status: `MeasurementEnd` 74 when they are not where asked,
    /// 128 + the signal when stopped, 3 when a trial failed.
    package func end(rows: Int, planned: Int, written: [URL], failed: Bool, unit: String = "runs") throws {
        ShardLog.end(shard, rows: rows, signal: stop.signalName, sink: sink)
        // runs/latest points at a folder that holds what was measured (an appending command's
        // folder holds nothing of this invocation until a row is written).
        if sink.failure == nil && (rows > 0 || command.ownsItsFolder) { folder.markLatest() }
        let stopped =
            stop.requested
            ? "bench: interrupted by \(stop.signalName ?? "a signal") after \(rows) of \(planned) \(unit)" : nil
        if let lost = sink.failureSummary {
            if let stopped { printError(stopped) }
            printError("bench: \(lost)")
            throw MeasurementEnd(status: BenchExitCode.outputLost.rawValue)
        }
        if !written.isEmpty {
            print("wrote \(written.map(\.path).joined(separator: ", "))")
            print("results in \(sink.folder.directory.path)")
        }
        if let stopped {
            printError(
                stopped
                    + (rows > 0
                        ? "; what was measured is written" : "; nothing was measured whole, so nothing was recorded")
            )
            throw MeasurementEnd(status: stop.exitStatus)
        }
        if failed { throw MeasurementEnd(status: BenchExitCode.runFailed.rawValue) }
    }
}
