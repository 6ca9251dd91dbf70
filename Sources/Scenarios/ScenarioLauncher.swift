import Foundation
import Harness

/// Runs one scroll in a fresh child: `bench _scenario <spec JSON>`, report on fd 3, with the
/// same preloads as a trial (libHeapPeak.so, jemalloc when asked) and TMPDIR in its work folder.
public struct ScenarioLauncher {
    public static let subcommand = "_scenario"

    /// A trial's launcher, for the executable and the environment a measured child gets.
    public var children: ChildProcessLauncher
    public var executable: String { children.executable }

    public init(executable: String? = nil) {
        children = ChildProcessLauncher(executable: executable)
    }

    /// Runs the child; the work folder is left for the caller to inspect and delete.
    public func launch(_ spec: ScrollSpec) -> ScrollResult {
        var failed = ScrollResult(spec: spec)
        failed.status = "error"
        do {
            try FileManager.default.createDirectory(at: spec.workDirectory, withIntermediateDirectories: true)
            // FoundationNetworking puts download tasks' temporary files in TMPDIR: the work folder.
            let environment = try children.environment(workDirectory: spec.workDirectory, allocator: spec.allocator)
            let output = try ChildProcess.run(
                executable: executable,
                arguments: [Self.subcommand, String(decoding: try JSONEncoder().encode(spec), as: UTF8.self)],
                environment: environment, timeoutSeconds: spec.scrollSeconds + spec.timeoutSeconds + 30)
            failed.pid = output.pid
            if !output.timedOut, let result = try? JSONDecoder().decode(ScrollResult.self, from: output.report) {
                return result
            }
            let lastLines = String(decoding: output.standardError, as: UTF8.self).split(separator: "\n").suffix(3).joined(separator: " | ")
            // Over a memory budget the child traps without a report; its last recorded peak remains.
            failed.peakRSSBytes = MemoryBudget.recordedPeak(in: spec.workDirectory) ?? 0
            if output.timedOut {
                failed.status = "timeout"
            } else if let signal = output.terminatingSignal {
                failed.status = "killed"
                failed.error = "signal \(signal) (\(String(cString: strsignal(signal)))) "
            } else {
                failed.status = "failed"
                failed.error = "exit status \(output.exitStatus ?? -1) "
            }
            failed.error += "child left no report: \(lastLines)"
        } catch {
            failed.error = String(describing: error)
        }
        return failed
    }
}
