import BenchCore
import Foundation
import Harness
import Report

/// Opens a measuring command's folder. A new run records its settings there (settings.json)
/// before the first trial; `--resume` reopens an interrupted run's folder, with its run id, only
/// when the settings are the same (else exit 64, naming each that differs). A folder of another
/// command is refused (73), or with --replace cleared of that command's files (`FolderOwnership`).
package enum MeasurementFolder {
    package static func open(
        _ out: String?,
        for command: MeasuringCommand,
        replacing: Bool,
        resume: Bool,
        settings: [(String, String)]
    ) throws -> OutputFolder {
        let files = OutputFiles.folderFiles(command)
        guard resume, let out else {
            let folder = try openOutput(out, files: files + [OutputFiles.settings.folderFile], replacing: replacing)
            try FolderOwnership.claim(folder.directory, for: command.rawValue, replacing: replacing)
            do {
                try RunSettings(
                    command: command.rawValue,
                    runID: folder.runID,
                    settings: settings,
                    provenance: Measurement.provenance
                ).write(
                    into: folder.directory
                )
            } catch {
                throw BenchFailure(
                    .cannotCreateOutput,
                    "cannot record the run's settings in \(folder.directory.path): \(error)"
                )
            }
            return folder
        }
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        let recorded: RunSettings?
        do { recorded = try RunSettings.read(from: directory) } catch {
            throw BenchFailure(
                .badInput,
                "--resume: \(directory.appendingPathComponent(RunSettings.fileName).path) is not readable: \(error)"
            )
        }
        guard let recorded else {
            throw BenchFailure(
                .noInput,
                "--resume: \(out) holds no \(RunSettings.fileName) of an interrupted run; "
                    + "give the --out of a run that was stopped, or start a new run without --resume"
            )
        }
        let differences = RunSettings(
            command: command.rawValue,
            runID: recorded.runID,
            settings: settings,
            provenance: Measurement.provenance
        ).differences(from: recorded)
        guard differences.isEmpty else {
            throw BenchFailure(
                .usage,
                "--resume: the settings differ from those of the interrupted run in \(out):\n  "
                    + differences.joined(separator: "\n  ")
                    + "\ngive the same ones to go on with it, or start a new run without --resume"
            )
        }
        return try openOutput(out, files: files, replacing: true, runID: recorded.runID)
    }

    /// Opens the folder of a command that appends its rows after earlier invocations' (list-scroll):
    /// a folder without settings.json gets one that records its format (its settings are on every
    /// row); one with settings.json (the scroll's, or a run's beside which it appends) must be of a
    /// format this bench reads (65 otherwise). A folder of the previous format that holds the
    /// command's rows under their old name is read, never appended to (73).
    package static func openAppending(_ out: String?, for command: MeasuringCommand) throws -> OutputFolder {
        let folder = try openOutput(out, files: OutputFiles.folderFiles(command), replacing: false)
        let directory = folder.directory
        let recorded: RunSettings?
        do { recorded = try RunSettings.read(from: directory) } catch {
            throw BenchFailure(.badInput, "\(error)")
        }
        for file in OutputFiles.of(command) {
            guard let previous = file.previousName,
                FileManager.default.fileExists(atPath: directory.appendingPathComponent(previous).path)
            else { continue }
            throw BenchFailure(
                .cannotCreateOutput,
                "--out \(directory.path) holds \(previous), the rows of a format \(ResultsFormat.previous) folder, "
                    + "which this bench reads but does not append to: choose another --out, or rename it "
                    + "\(file.name) (its columns are the same) to go on appending"
            )
        }
        guard recorded == nil else { return folder }
        do {
            try RunSettings(
                command: command.rawValue,
                runID: folder.runID,
                settings: [],
                provenance: Measurement.provenance
            )
            .write(into: directory)
        } catch {
            throw BenchFailure(.cannotCreateOutput, "cannot record the folder's format in \(directory.path): \(error)")
        }
        return folder
    }

    /// Opens the output folder and checks the `files` to be written there before the first trial,
    /// or fails with 73 (unwritable, or an earlier run's rows without `replacing`) or 75 (in use).
    /// Every measuring command starts here, so it also checks $TMPDIR, where the run keeps its
    /// scratch (73, and nothing created, when it cannot), and clears the scratch that killed runs left.
    package static func openOutput(
        _ out: String?,
        files: [OutputFolder.File],
        replacing: Bool,
        runID: String? = nil
    ) throws -> OutputFolder {
        if let problem = TemporaryFolder.problem() { throw BenchFailure(.cannotCreateOutput, problem) }
        StaleScratch.removeLeftovers()
        do {
            return try OutputFolder.open(out: out, files: files, replacing: replacing, runID: runID)
        } catch let failure as OutputFolder.Failure {
            throw BenchFailure(failure.kind == .busy ? .outputBusy : .cannotCreateOutput, failure.description)
        } catch {
            throw BenchFailure(.cannotCreateOutput, "cannot open the output folder: \(error)")
        }
    }
}
