import ArgumentParser
import BenchCore
import Foundation
import Harness
import Measuring

/// The child side of a run: `bench _trial --spec-file <path>`, started by the parent, never by hand.
/// Reports its TrialResult as JSON on fd 3, or on stdout with `--stdout` (to run a trial
/// standalone, e.g. under heaptrack or valgrind: see scripts/validate.py).
struct TrialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ChildProcessLauncher.trialSubcommand,
        abstract: "Run one measured trial (internal: started by `bench run` in a fresh process).",
        shouldDisplay: false
    )

    @OptionGroup var spec: ChildSpecOption

    @Flag(name: .customLong("stdout"), help: "Write the report to stdout instead of fd 3.")
    var reportToStandardOutput = false

    func run() throws {
        try Self.measure(specFile: spec.specFile, reportingTo: reportToStandardOutput ? STDOUT_FILENO : nil)
    }

    /// Runs the trial of the spec in `specFile` and reports it on fd 3 (or `descriptor`), then
    /// exits: also the child's entry without the parser (`MeasuredChildEntry`).
    static func measure(specFile: String, reportingTo descriptor: Int32? = nil) throws -> Never {
        ChildGuard.arm(command: ChildProcessLauncher.trialSubcommand)
        let spec = try ChildSpecOption.decode(TrialSpec.self, from: specFile)
        let report = try JSONEncoder().encode(ChildTrial.run(spec))
        try FileHandle(fileDescriptor: descriptor ?? ChildProcess.reportDescriptor, closeOnDealloc: false)
            .write(contentsOf: report)
        // Leave at once: the measurement is done, and tearing down URLSession's threads and running
        // the libraries' exit handlers buys nothing (about 1 ms of the trial's fixed cost).
        fflush(nil)
        _exit(BenchExitCode.success.rawValue)
    }
}
