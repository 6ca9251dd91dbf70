import BenchCore
import Foundation
import Harness

/// Runs one scroll in a fresh child: `bench _list-scroll --spec-file <work>/child-spec.json`
/// (`ChildSpec`, as a trial), report on fd 3, with the same environment as a trial (jemalloc
/// preloaded when asked) and TMPDIR in its work folder.
package struct ListScrollLauncher {
    package static let subcommand = "_list-scroll"

    /// The one launcher of measured children, with the executable and the environment they get.
    package var children: ChildProcessLauncher

    package init(executable: String? = nil) {
        children = ChildProcessLauncher(executable: executable)
    }

    /// Runs the child through the one launcher (`ChildProcessLauncher.run`); the work folder is left
    /// for the caller to inspect and delete.
    package func launch(_ spec: ScrollSpec) -> ScrollResult {
        switch children.run(spec, reporting: ScrollResult.self) {
        case .reported(let result, _):
            return result
        case .failed(let status, let error, let pid):
            var failed = ScrollResult(spec: spec)
            (failed.status, failed.error, failed.pid) = (status, error, pid)
            // Over a memory budget the child traps without a report; its last recorded peak remains.
            if status != .harnessError { failed.peakRSSBytes = MemoryBudget.recordedPeak(in: spec.workDirectory) }
            return failed
        }
    }
}

extension ScrollSpec: MeasuredChildSpec {
    package static var subcommand: String { ListScrollLauncher.subcommand }
    /// The scroll, its time limit after it, and 30 s for the child's start-up and report.
    package var childTimeoutSeconds: Double { scrollSeconds + timeoutSeconds + 30 }
}
