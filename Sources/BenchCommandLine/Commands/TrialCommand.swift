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
        ChildGuard.arm(command: ChildProcessLauncher.trialSubcommand)
        let decoded = try spec.decode(TrialSpec.self)
        let result = ChildTrial.run(decoded)
        let report = try JSONEncoder().encode(result)
        let descriptor = reportToStandardOutput ? STDOUT_FILENO : ChildProcess.reportDescriptor
        try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: report)
        // Leave at once: the measurement is done, and tearing down URLSession's threads buys nothing.
        Foundation.exit(BenchExitCode.success.rawValue)
    }
}
