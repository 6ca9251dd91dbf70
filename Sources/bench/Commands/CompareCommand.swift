import ArgumentParser
import Foundation
import Harness
import Report

extension GateReport.Format: ExpressibleByArgument {}

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "The memory gate: compare a run with the baseline, cell by cell.",
        discussion: """
        For every strategy x renderer x allocator cell and every metric of the thresholds file \
        (peak RSS over baseline, heap peak over baseline), compares the medians of the runs.
        A metric regresses when its median grew by more than max(absolute_bytes, relative_percent \
        of the baseline median) AND a one-sided Mann-Whitney U test over the runs says the growth \
        is significant at significance_level: one noisy run can do neither. Improvements are \
        reported and never fail. A cell whose coefficient of variation is above cv_warning_percent \
        gets a stability warning.

        Examples:
          bench compare results/baseline.json results/trials.csv
          bench compare old/trials.json new/trials.json --format markdown > comment.md

        Exit status: 0 within thresholds; 2 regression; 3 runs failed in CURRENT, a baseline cell \
        is missing from it, or a file is malformed; 5 no baseline (file missing or empty, or a cell \
        without a successful baseline run); 64 bad options or thresholds file.
        """)

    @Argument(help: "The reference: a trials.json or trials.csv (e.g. results/baseline.json).")
    var baseline: String

    @Argument(help: "The run to judge: a trials.json or trials.csv.")
    var current: String

    @Option(help: "The committed gate settings: tolerances per metric, significance level, CV warning.")
    var thresholds = "results/thresholds.json"

    @Option(help: "Table format: text or markdown (for a pull-request comment).")
    var format: GateReport.Format = .text

    func run() throws {
        let settings: GateThresholds
        do {
            settings = try GateThresholds.load(from: URL(fileURLWithPath: thresholds))
        } catch {
            BenchFailure(.usage, "\(error)").exit()
        }
        let baselineRuns: [TrialResult]
        do {
            baselineRuns = try TrialsFile.load(baseline)
        } catch let error as TrialsFile.LoadError {
            switch error {
            case .missing, .empty:
                BenchFailure(.noBaseline, "no baseline: \(error); make one with `bench baseline update` (or `make baseline`)").exit()
            case .malformed:
                BenchFailure(.runFailed, "baseline \(error)").exit()
            }
        }
        let currentRuns: [TrialResult]
        do {
            currentRuns = try TrialsFile.load(current)
        } catch {
            BenchFailure(.runFailed, "current run: \(error)").exit()
        }

        let gate = GateComparison(baseline: baselineRuns, current: currentRuns, thresholds: settings)
        print(GateReport.render(gate, format: format), terminator: "")
        if gate.exitCode != .success { throw ExitCode(gate.exitCode.rawValue) }
    }
}
