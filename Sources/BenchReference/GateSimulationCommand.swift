import ArgumentParser
import BenchCore
import Foundation
import ReferenceDocuments
import Report

/// `bench-reference gate-simulation`: how often the gate flags an unchanged bimodal cell, at each
/// significance level, so that its level can be chosen (results/README.md says why it is 0.005).
struct GateSimulationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gate-simulation",
        abstract: "How often the memory gate raises a false alarm on the bimodal data+full cell, by simulation.",
        discussion: """
            Draws gates of the baseline's run count against --current-runs runs from a two-mode mixture fitted \
            to the baseline's data+full heap peaks (low-mode values drawn from its own runs, each run 16.8 MB \
            higher with probability q: the baseline's high-mode rate, at least 0.1, or --rate), and judges \
            each with the gate's rule at the levels 0.05 and 0.005. Deterministic: the same seed, the same figures.

            Exit status: 0 done; 64 bad command-line input; 65 a file is malformed; 66 a file is missing.
            """
    )

    @Option(help: "The baseline the mixture is fitted to.")
    var baseline = "results/baseline.json"

    @Option(help: "The gate's thresholds (the heap peak's allowance).")
    var thresholds = "results/thresholds.json"

    @Option(help: "Gates drawn per allocator.")
    var gates = 20_000

    @Option(help: "Current runs per gate.")
    var currentRuns = 5

    @Option(help: "The high-mode rate q instead of the baseline's, in [0, 1].")
    var rate: Double?

    func validate() throws {
        guard (1...10_000_000).contains(gates) else {
            throw ValidationError("--gates must be 1-10000000, got \(gates)")
        }
        guard (1...100).contains(currentRuns) else {
            throw ValidationError("--current-runs must be 1-100, got \(currentRuns)")
        }
        if let rate, !(0...1).contains(rate) { throw ValidationError("--rate must be in [0, 1], got \(rate)") }
    }

    func run() throws {
        let runs: [TrialResult]
        do {
            runs = try TrialsFile.load(baseline)
        } catch {
            let missing = !FileManager.default.fileExists(atPath: baseline)
            throw BenchReference.fail(missing ? .noInput : .badInput, "--baseline \(baseline): \(error)")
        }
        let loaded: GateThresholds
        do {
            loaded = try GateThresholds.load(from: URL(fileURLWithPath: thresholds))
        } catch {
            let missing = !FileManager.default.fileExists(atPath: thresholds)
            throw BenchReference.fail(missing ? .noInput : .badInput, "--thresholds \(thresholds): \(error)")
        }
        guard let tolerance = loaded.metrics[.peakAllocatedDelta] else {
            throw BenchReference.fail(
                .badInput,
                "--thresholds \(thresholds) has no \(GateMetric.peakAllocatedDelta.rawValue): the heap peak's allowance"
            )
        }
        var simulation = GateSimulation()
        simulation.gates = gates
        simulation.currentRuns = currentRuns
        simulation.rate = rate
        let outcomes = simulation.run(baseline: runs, tolerance: tolerance)
        guard !outcomes.isEmpty else {
            throw BenchReference.fail(.badInput, "--baseline \(baseline) has no successful data+full run")
        }
        for outcome in outcomes {
            let levels = simulation.levels.map {
                "flagged at \($0): " + String(format: "%.2f %%", outcome.percentFlagged(at: $0))
            }
            print(
                "\(outcome.allocator.rawValue): \(outcome.highRuns) of \(outcome.baselineRuns) baseline runs in the high mode; "
                    + String(format: "q = %.2f; ", outcome.rate)
                    + "\(outcome.baselineRuns) baseline vs \(outcome.currentRuns) current runs, \(outcome.gates) gates: "
                    + levels.joined(separator: ", ")
            )
        }
    }
}
