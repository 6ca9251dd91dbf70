import ArgumentParser
import BenchCore
import Foundation
import Harness
import Measuring
import Report

struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Manage the gate's reference run (results/baseline.json).",
        subcommands: [BaselineUpdateCommand.self]
    )
}

struct BaselineUpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Write the baseline from a new run of the matrix, or from an existing export.",
        usage: "bench baseline update [--from <export>] [--baseline <path>] [<bench run options>]",
        discussion: """
            Without --from, measures like `bench run` (same options; its exports go to --out) and \
            writes the baseline from that run. A run with failed trials is refused: a baseline must \
            hold only successful runs. Measure with the build the gate uses (release) on the machine \
            that runs the gate, and commit the file.

            Examples:
              bench baseline update --strategy data --strategy download --runs 10
              bench baseline update --from results/trials.json

            With --from the runs are taken as they are: a measuring option beside it (--strategy, --runs, ...) \
            would be ignored, and is refused.

            Exit status: 0 written; 3 the run or the export has failed trials; 64 bad options; 65 the export \
            is not a run's trials (a missing column, an impossible figure: both named); 66 the export does \
            not exist; 70 the harness could not start; 73 --baseline cannot be written (a folder, a FIFO \
            nobody reads, a full disk; a folder is found before measuring), or --out as for `bench run`.
            """
    )

    @OptionGroup var measurement: RunCommand

    @Option(help: "Take the runs from this trials.json or trials.csv instead of measuring.")
    var from: String?

    @Option(help: "Where the baseline is written.")
    var baseline = "results/baseline.json"

    /// The options of this command itself; every other one is `bench run`'s, for measuring.
    static let ownOptions: Set<String> = ["--from", "--baseline"]

    func validate() throws {
        if baseline.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--baseline is empty; give the file to write, e.g. results/baseline.json")
        }
        guard from != nil else { return }
        if let ignored = Self.measuringOptions(in: GivenArguments.current).first {
            throw ValidationError(
                "\(ignored) does not apply with --from: the baseline takes the export's runs as they are; "
                    + "drop \(ignored), or drop --from to measure a new run with it"
            )
        }
    }

    /// The options after `update` that are not this command's own (with an `=value` or not).
    static func measuringOptions(in arguments: [String]) -> [String] {
        guard let start = arguments.firstIndex(of: "update") else { return [] }
        var found: [String] = []
        var index = start + 1
        while index < arguments.count {
            let argument = arguments[index]
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            if ownOptions.contains(name) {
                index += argument.contains("=") ? 1 : 2  // skip its value
                continue
            }
            if argument == "--" { break }
            if argument.hasPrefix("-"), !["-h", "--help"].contains(argument) { found.append(name) }
            index += 1
        }
        return found
    }

    func run() throws {
        // Before measuring: a run of minutes must not end in "cannot write".
        if let refusal = SafeFile.refusal(SafeFile.resolved(baseline)) {
            throw BenchFailure(
                .cannotCreateOutput,
                "--baseline \(baseline): \(refusal.reason); give the file to write, e.g. results/baseline.json"
            ).reported()
        }
        let source =
            from
            ?? ResultsWriter(directory: URL(fileURLWithPath: measurement.out ?? "runs/latest", isDirectory: true))
            .trialsJSON.path
        if from == nil {
            do {
                try measurement.run()
            } catch let exit as ExitCode where exit.rawValue == BenchExitCode.runFailed.rawValue {
                throw BenchFailure(.runFailed, "baseline not written: some runs failed (see \(source))").reported()
            }
        }
        let trials: [TrialResult]
        do {
            trials = try TrialsFile.load(source)
        } catch let error as TrialsFile.LoadError {
            let status: BenchExitCode = if case .missing = error { .noInput } else { .badInput }
            throw BenchFailure(status, "baseline not written: \(error)").reported()
        } catch {
            throw BenchFailure(.badInput, "baseline not written: \(error)").reported()
        }
        let failed = trials.filter { !$0.isSuccess }
        guard failed.isEmpty else {
            throw BenchFailure(
                .runFailed,
                "baseline not written: \(failed.count) of \(trials.count) runs in \(source) failed, "
                    + "e.g. \(failed[0].cell) run \(failed[0].run): \(failed[0].error)"
            ).reported()
        }

        let context = try Self.context(of: source, trials: trials)
        let destination = URL(fileURLWithPath: baseline)
        do {
            try AtomicFile.write(JSONExport(context: context, trials: trials).encoded(), to: destination)
        } catch let failure as AtomicFile.WriteError {
            throw BenchFailure(.cannotCreateOutput, "baseline not written: \(failure)").reported()
        }
        let cells = Set(trials.map(\.cell))
        print("wrote \(destination.path): \(cells.count) cells, \(trials.count) runs")
    }

    /// The export's own context when it has one (trials.json), else a new one saying where the rows came from.
    static func context(of path: String, trials: [TrialResult]) throws -> RunContext {
        if let data = FileManager.default.contents(atPath: path),
            let export = try? JSONDecoder.trials.decode(JSONExport.self, from: data)
        {
            return export.context
        }
        let runs = Dictionary(grouping: trials, by: \.cell).values.map(\.count).max() ?? 0
        return RunContext(
            command: GivenArguments.current.joined(separator: " "),
            source: "rows of \(path)",
            payloadBytes: trials.compactMap(\.payloadBytes).max(),
            runsPerCell: runs,
            sampleIntervalNanos: 0
        )
    }
}
