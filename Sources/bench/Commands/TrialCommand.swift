import ArgumentParser
import Foundation
import Harness

/// The child side of a run: `bench _trial <spec JSON>`, started by the parent, never by hand.
/// Reports its TrialResult as JSON on fd 3 (stdout when fd 3 is not open, for debugging).
struct TrialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ChildProcessLauncher.trialSubcommand,
        abstract: "Run one measured trial (internal: started by `bench run` in a fresh process).",
        shouldDisplay: false)

    @Argument(help: "The trial's TrialSpec as JSON.")
    var spec: String

    func run() throws {
        let decoded: TrialSpec
        do {
            decoded = try JSONDecoder().decode(TrialSpec.self, from: Data(spec.utf8))
        } catch {
            throw ValidationError("the trial spec is not valid JSON for TrialSpec: \(error)")
        }
        let result = ChildTrial.run(decoded)
        let report = try JSONEncoder().encode(result)
        let descriptor = fcntl(ChildProcess.reportDescriptor, F_GETFD) >= 0 ? ChildProcess.reportDescriptor : STDOUT_FILENO
        try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: report)
        // Leave at once: the measurement is done, and tearing down URLSession's threads buys nothing.
        Foundation.exit(BenchExitCode.success.rawValue)
    }
}
