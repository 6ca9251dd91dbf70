import BenchCore
import CChildGuard
import Foundation

/// The measured child's side of `ChildProcess`'s protections, armed first thing in `bench _trial`
/// and `bench _list-scroll` (before the warm-up): a child must never outlive a parent that died
/// without cleaning up, nor run on when nobody is left to kill it at `--timeout`.
package enum ChildGuard {
    /// Dies with the parent: SIGKILL when the parent goes (PR_SET_PDEATHSIG), and an exit at once
    /// when the parent is already gone (the signal was asked for too late to come). The check is
    /// against the pid the parent passed (`ChildProcess.parentVariable`), not against 1: in a
    /// container a subreaper, not init, adopts an orphan. Then a backstop ends the child by itself
    /// `ChildProcess.backstopVariable` seconds after it started (libcurl's transfers included),
    /// after the parent's own kill, so that a slow run is still the parent's `timeout` row.
    /// A child started by hand (`bench _trial --stdout`, under a profiler) has neither variable.
    package static func arm(command: String) {
        if let parent = variable(ChildProcess.parentVariable).flatMap({ pid_t($0) }), parent > 0,
            childguard_die_with_parent(parent) == 0
        {
            // To a dead parent's pipe this line is lost (or SIGPIPE ends the child first): it is for a
            // child started by hand with a stray variable.
            StandardError.write(
                "bench \(command): its parent, pid \(parent) (\(ChildProcess.parentVariable)), "
                    + "is gone: leaving\n"
            )
            _exit(BenchExitCode.internalError.rawValue)
        }
        if let seconds = variable(ChildProcess.backstopVariable).flatMap({ Double($0) }),
            seconds > 0, seconds.isFinite
        {
            let message =
                "bench \(command): still running \(String(format: "%g", seconds)) s after it started, "
                + "past its parent's time limit: its own backstop ends it"
            _ = childguard_start_backstop(seconds, BenchExitCode.internalError.rawValue, message)
        }
    }

    private static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
