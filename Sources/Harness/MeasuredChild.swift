import BenchCore
import Foundation

/// What a measured child is asked to do (a trial's `TrialSpec`, a scroll's `ScrollSpec`): written
/// into its work folder and run by `bench <subcommand> --spec-file <file>` (`ChildSpec`).
package protocol MeasuredChildSpec: Encodable {
    /// The hidden subcommand that runs it in the child.
    static var subcommand: String { get }
    /// The child's own folder: its spec, TMPDIR and whatever it leaves.
    var workDirectory: URL { get }
    var allocator: Allocator { get }
    /// How long the child may run before it is killed and recorded as a timeout.
    var childTimeoutSeconds: Double { get }
    /// Whether the child ends on SIGINT and reports (a listening server): the run's first signal is
    /// passed on to it instead of killing it (`ChildProcess.run`).
    var endsOnInterrupt: Bool { get }
}

extension MeasuredChildSpec {
    package var endsOnInterrupt: Bool { false }
}

/// How a measured child ended: with its report, or without one, said one way for every kind of child.
package enum MeasuredChildOutcome<Report: Decodable> {
    case reported(Report, pid: Int32)
    /// `status` is timeout, crashed (ended by a signal or an exit without a report) or harness_error
    /// (the child could not be started); `error` says why, with the child's last words.
    case failed(status: TrialStatus, error: String, pid: Int32)
}

extension ChildProcessLauncher {
    /// Runs one measured child: the only code that spawns one. The work folder is made if needed and
    /// left for the caller; the child gets the measured environment (`environment(workDirectory:allocator:)`),
    /// its spec in a file, and is killed after the spec's timeout. Its report (fd 3) is decoded as `Report`.
    /// A long-lived child (the image server) is driven by `during`, on a thread of its own, and sent
    /// SIGINT when it returns: it then reports as any child does (`ChildProcess.run`).
    package func run<Spec: MeasuredChildSpec, Report: Decodable>(
        _ spec: Spec,
        reporting: Report.Type,
        during: (@Sendable (pid_t) -> Void)? = nil
    ) -> MeasuredChildOutcome<Report> {
        do {
            try FileManager.default.createDirectory(at: spec.workDirectory, withIntermediateDirectories: true)
            let output = try ChildProcess.run(
                executable: executable,
                arguments: Self.arguments(for: spec),
                environment: environment(workDirectory: spec.workDirectory, allocator: spec.allocator),
                timeoutSeconds: spec.childTimeoutSeconds,
                endsOnInterrupt: spec.endsOnInterrupt,
                during: during
            )
            if !output.timedOut, !output.report.isEmpty,
                let report = try? JSONDecoder().decode(Report.self, from: output.report)
            {
                return .reported(report, pid: output.pid)
            }
            let (status, error) = Self.describeFailure(output, timeoutSeconds: spec.childTimeoutSeconds)
            return .failed(status: status, error: error, pid: output.pid)
        } catch {
            return .failed(status: .harnessError, error: String(describing: error), pid: 0)
        }
    }

    /// A child's command line after the executable: its subcommand and its spec, written to a file
    /// of its work folder (`ChildSpec`). `bench` starts such a child without its parser
    /// (`MeasuredChildEntry`).
    package static func arguments<Spec: MeasuredChildSpec>(for spec: Spec) throws -> [String] {
        try [Spec.subcommand] + ChildSpec.write(spec, in: spec.workDirectory)
    }

    /// The row of a child that left no report: timeout, or the signal / exit status and the
    /// child's own last words (the "Fatal error: ..." line), never the backtrace's image list.
    static func describeFailure(_ output: ChildProcessOutput, timeoutSeconds: Double) -> (TrialStatus, String) {
        if output.timedOut {
            let words = ChildFailure.lastWords(standardError: output.standardError).map { ": \($0)" } ?? ""
            return (.timeout, "killed after \(timeoutSeconds) s without finishing\(words)")
        }
        return (
            .crashed,
            ChildFailure.describe(
                exitStatus: output.exitStatus,
                signal: output.terminatingSignal,
                standardError: output.standardError
            )
        )
    }
}

extension TrialSpec: MeasuredChildSpec {
    package static var subcommand: String { ChildProcessLauncher.trialSubcommand }
    package var childTimeoutSeconds: Double { timeoutSeconds }
}
