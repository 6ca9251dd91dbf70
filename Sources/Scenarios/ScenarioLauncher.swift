import BenchCore
import Foundation
import Harness

/// Runs one scroll in a fresh child: `bench _scenario --spec-file <work>/child-spec.json`
/// (`ChildSpec`, as a trial), report on fd 3, with the same environment as a trial (jemalloc
/// preloaded when asked) and TMPDIR in its work folder.
package struct ScenarioLauncher {
    package static let subcommand = "_scenario"

    /// A trial's launcher, for the executable and the environment a measured child gets.
    package var children: ChildProcessLauncher
    package var executable: String { children.executable }

    package init(executable: String? = nil) {
        children = ChildProcessLauncher(executable: executable)
    }

    /// Runs the child; the work folder is left for the caller to inspect and delete.
    package func launch(_ spec: ScrollSpec) -> ScrollResult {
        var failed = ScrollResult(spec: spec)
        failed.status = .harnessError
        do {
            try FileManager.default.createDirectory(at: spec.workDirectory, withIntermediateDirectories: true)
            // FoundationNetworking puts download tasks' temporary files in TMPDIR: the work folder.
            let environment = try children.environment(workDirectory: spec.workDirectory, allocator: spec.allocator)
            let output = try ChildProcess.run(
                executable: executable,
                arguments: [Self.subcommand] + ChildSpec.write(spec, in: spec.workDirectory),
                environment: environment,
                timeoutSeconds: spec.scrollSeconds + spec.timeoutSeconds + 30
            )
            failed.pid = output.pid
            if !output.timedOut, let result = try? JSONDecoder().decode(ScrollResult.self, from: output.report) {
                return result
            }
            // Over a memory budget the child traps without a report; its last recorded peak remains.
            failed.peakRSSBytes = MemoryBudget.recordedPeak(in: spec.workDirectory)
            if output.timedOut {
                failed.status = .timeout
                failed.error =
                    "child left no report: killed after \(String(format: "%.0f", spec.scrollSeconds + spec.timeoutSeconds + 30)) s"
                    + (ChildFailure.lastWords(standardError: output.standardError).map { ": \($0)" } ?? "")
            } else {
                // As a trial: a child that ended (by a signal or an exit) without a report crashed.
                failed.status = .crashed
                failed.error =
                    "child left no report: "
                    + ChildFailure.describe(
                        exitStatus: output.exitStatus,
                        signal: output.terminatingSignal,
                        standardError: output.standardError
                    )
            }
        } catch {
            failed.error = String(describing: error)
        }
        return failed
    }
}
