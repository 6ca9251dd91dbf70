import ArgumentParser
import BenchCore
import Foundation
import Harness
import Measuring
import Report
import Scenarios

extension GateReport.Format: ExpressibleByArgument {}

package struct CompareCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "The memory gate: compare a run with the baseline, cell by cell.",
        discussion: """
            For every strategy x renderer x allocator cell and every metric of the thresholds file \
            (peak RSS over baseline, heap peak over baseline), compares the medians of the runs.
            A metric regresses when its median grew by more than max(absolute_bytes, relative_percent \
            of the baseline median) AND a one-sided Mann-Whitney U test over the runs (exact, ties \
            included: a permutation test over the observed values) says the growth is significant at \
            significance_level: one noisy run can do neither. Improvements are \
            reported and never fail. A cell whose coefficient of variation is above cv_warning_percent \
            gets a stability warning. Warnings never change the verdict; they are one line per kind, with \
            the cells counted (--verbose lists each).

            Examples:
              bench compare results/baseline.json results/trials.csv
              bench compare old/trials.json new/trials.json --format markdown > comment.md
              bench compare runs/server-before runs/server-after

            Two image-server runs (their folders, or their server.csv) are compared by memory per request \
            in flight: each cell's heap and RSS slopes, a slope regressing when it grew by more than the \
            metric's tolerance (of the baseline's slope) and its 95% interval lies wholly above the \
            baseline's.

            The two files must have measured the same thing: a different payload size, image size or \
            set of strategies is refused (exit 3) with both values named.

            When the two sides were measured by different bench binaries (their GNU build IDs differ, \
            or a side records none), a last line says so, naming both builds and commits; it never \
            changes the verdict.

            Exit status: 0 within thresholds; 2 regression; 3 runs failed in CURRENT, a baseline cell \
            is missing from it, the files measured different things, or a file is malformed; 5 no baseline (file missing or empty, or a cell \
            without a successful baseline run); 64 bad options or thresholds file.
            """
    )

    @Argument(
        help:
            "The reference: a trials.json or trials.csv (e.g. results/baseline.json), or an image-server run's folder or server.csv."
    )
    var baseline: String

    @Argument(help: "The run to judge: a trials.json or trials.csv, or an image-server run's folder or server.csv.")
    var current: String

    @Option(
        help: ArgumentHelp(
            "The gate settings: tolerances per metric, significance level, CV warning.",
            discussion:
                "Default: thresholds.json next to BASELINE (results/thresholds.json beside results/baseline.json), "
                + "else results/thresholds.json in the current folder.",
            valueName: "file"
        )
    )
    var thresholds: String?

    @Option(help: "Table format: text or markdown (for a pull-request comment).")
    var format: GateReport.Format = .text

    @Flag(help: "List every warning on its own line (by default one line per kind of warning, with the cells counted).")
    var verbose = false

    /// Where the thresholds come from when --thresholds is not given: the file that sits next to
    /// the baseline (so `bench compare /repo/results/baseline.json ...` works from any folder),
    /// then results/thresholds.json in the current folder. Every path tried, in order.
    package static func defaultThresholdsCandidates(baseline: String, workingDirectory: String) -> [String] {
        let beside = URL(
            fileURLWithPath: baseline,
            relativeTo: URL(fileURLWithPath: workingDirectory, isDirectory: true)
        )
        .deletingLastPathComponent().appendingPathComponent("thresholds.json").standardizedFileURL.path
        let inResults = URL(fileURLWithPath: workingDirectory, isDirectory: true)
            .appendingPathComponent("results/thresholds.json").standardizedFileURL.path
        return beside == inResults ? [beside] : [beside, inResults]
    }

    package func run() throws {
        if let baselineServer = ServerGate.serverCSV(at: baseline) { return try compareServers(baselineServer) }
        // The baseline first: without one there is nothing to compare, whatever else is missing.
        let baselineRuns: [TrialResult]
        do {
            baselineRuns = try TrialsFile.load(baseline)
        } catch let error as TrialsFile.LoadError {
            switch error {
            case .missing, .empty:
                throw BenchFailure(
                    .noBaseline,
                    "no baseline: \(error); make one with `bench baseline update` (or `make baseline`)"
                ).reported()
            case .malformed, .folder:
                throw BenchFailure(.runFailed, "baseline \(error)").reported()
            case .conflictingRows:
                throw BenchFailure(.badInput, "baseline \(error)").reported()
            }
        }
        let settings = try gateThresholds()
        let currentRuns: [TrialResult]
        do {
            currentRuns = try TrialsFile.load(current)
        } catch let error as TrialsFile.LoadError {
            if case .conflictingRows = error { throw BenchFailure(.badInput, "current run: \(error)").reported() }
            throw BenchFailure(.runFailed, "current run: \(error)").reported()
        } catch {
            throw BenchFailure(.runFailed, "current run: \(error)").reported()
        }

        let differences = GateCompatibility.differences(baseline: baselineRuns, current: currentRuns)
        if !differences.isEmpty {
            throw BenchFailure(
                .runFailed,
                "cannot compare \(current) with baseline \(baseline), they measured different things: "
                    + differences.joined(separator: "; ")
                    + "; measure the baseline with the same fixture and strategies (bench baseline update)"
            ).reported()
        }

        let gate = GateComparison(baseline: baselineRuns, current: currentRuns, thresholds: settings)
        print(GateReport.render(gate, format: format, verbose: verbose), terminator: "")
        // Not a failure: a reader of the verdict needs to know the sides were measured by two binaries.
        if let note = Provenance.differentBuilds(
            ("baseline", TrialsFile.provenance(baseline)),
            ("current", TrialsFile.provenance(current))
        ) {
            print(format == .markdown ? "\n\(note)" : note)
        }
        if gate.exitCode != .success { throw ExitCode(gate.exitCode.rawValue) }
    }

    /// The thresholds file: --thresholds, or the first default candidate that exists.
    private func gateThresholds() throws -> GateThresholds {
        let thresholdsPath: String
        if let thresholds {
            thresholdsPath = thresholds
        } else {
            let candidates = Self.defaultThresholdsCandidates(
                baseline: baseline,
                workingDirectory: FileManager.default.currentDirectoryPath
            )
            guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                throw BenchFailure(
                    .usage,
                    "no thresholds file: tried \(candidates.joined(separator: " and ")); "
                        + "pass --thresholds FILE (the repository's is results/thresholds.json)"
                ).reported()
            }
            thresholdsPath = found
        }
        do {
            return try GateThresholds.load(from: URL(fileURLWithPath: thresholdsPath))
        } catch {
            throw BenchFailure(.usage, "\(error)").reported()
        }
    }

    /// Two image-server runs: memory per request in flight, cell by cell (`ServerGate`).
    private func compareServers(_ baselineFile: URL) throws {
        guard let currentFile = ServerGate.serverCSV(at: current) else {
            throw BenchFailure(
                .runFailed,
                "cannot compare \(current) with the image-server baseline \(baseline): it is not an image-server run "
                    + "(its folder, with server.csv, or that file)"
            ).reported()
        }
        let settings = try gateThresholds()
        let sides: [(name: String, file: URL)] = [("baseline", baselineFile), ("current run", currentFile)]
        var points: [[ServerPoint]] = []
        for side in sides {
            do {
                points.append(try ServerGate.points(in: side.file))
            } catch {
                throw BenchFailure(.runFailed, "\(side.name): \(error)").reported()
            }
        }
        let gate = ServerGate(baseline: points[0], current: points[1], thresholds: settings)
        print(gate.render(format: format), terminator: "")
        if gate.exitCode != .success { throw ExitCode(gate.exitCode.rawValue) }
    }
}
