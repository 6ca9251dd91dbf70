import BenchCore
import CChildGuard
import Foundation
import Harness

/// Between `bench-reference measure` and a step's program (`bench-reference _step`), the leader of
/// the step's process group. It asks for SIGHUP when the thread of the tool that started it ends
/// (PR_SET_PDEATHSIG: the tool's death by SIGKILL or the OOM killer included) and then kills its
/// whole group, the program and whatever the program started (a script's `bench run`), so that no
/// step runs on when nobody is left to read what it writes. SIGINT and SIGTERM are the program's
/// (the tool passes a stop on to the group): the guard waits for the program, and for what the
/// program started (it is their reaper) up to `lingerSeconds`, and exits as the program did.
/// When the tool holds the terminal, the guard gives it to the step's group, as a shell gives it to
/// a job, so that a prompt (sudo) reads it and Ctrl-C reaches the program.
package enum StepGuard {
    /// The subcommand of bench-reference that runs `run(parent:arguments:)`.
    package static let subcommand = "_step"
    /// How long, after the program ends, what it started may take to end by itself.
    static let lingerSeconds = 30

    /// The words that start `arguments` under the guard, with `tool` the bench-reference binary.
    package static func guarding(_ arguments: [String], tool: String) -> [String] {
        [tool, subcommand, "--parent", String(getpid()), "--"] + arguments
    }

    /// Runs `arguments` (the program found on PATH) until it ends, and exits with its status
    /// (128 + N when signal N ended it). 70 when the parent is already gone or the program cannot start.
    package static func run(parent: pid_t, arguments: [String]) -> Never {
        setpgid(0, 0)  // the group's leader whoever started it (ChildProcess.spawn already makes one)
        // SIGHUP (the tool's death) and SIGCHLD are waited for below, never lost: blocked from here on.
        // The program starts with an empty mask and default dispositions (ChildProcess.spawn).
        var waited = sigset_t()
        sigemptyset(&waited)
        sigaddset(&waited, SIGHUP)
        sigaddset(&waited, SIGCHLD)
        pthread_sigmask(SIG_BLOCK, &waited, nil)
        signal(SIGCHLD, SIG_DFL)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        // Ctrl-Z would stop the step while the tool waits on: ignored here and in the program (an
        // ignored signal stays ignored across exec).
        signal(SIGTSTP, SIG_IGN)
        _ = childguard_become_subreaper()
        guard childguard_signal_on_parent_death(SIGHUP, parent) == 1 else {
            StandardError.write("bench-reference \(subcommand): its parent, pid \(parent), is gone: leaving\n")
            exit(BenchExitCode.internalError.rawValue)
        }
        if isatty(0) != 0, tcgetpgrp(0) == getpgid(parent) {
            signal(SIGTTOU, SIG_IGN)
            tcsetpgrp(0, getpgrp())
        }
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                executable: "/usr/bin/env",
                arguments: arguments,
                environment: ProcessInfo.processInfo.environment,
                descriptors: [.ours(0), .ours(1), .ours(2)],
                ownProcessGroup: false
            )
        } catch {
            StandardError.write("bench-reference: cannot start \(arguments[0]): \(error)\n")
            exit(BenchExitCode.internalError.rawValue)
        }
        // The program's descendants that outlive it (bench winding down after a script that started
        // it has ended) are this guard's to wait for: they are reparented to it.
        var programStatus: Int32?
        var lingering = 0
        while true {
            var status: Int32 = 0
            let reaped = waitpid(-1, &status, WNOHANG)
            if reaped == pid { programStatus = StudyRunner.shellStatus(status) }
            if reaped > 0 { continue }
            if reaped < 0 && errno == ECHILD { exit(programStatus ?? BenchExitCode.internalError.rawValue) }
            // The program has ended and what it left has had `lingerSeconds`: the tool kills the group.
            if let programStatus, lingering >= lingerSeconds { exit(programStatus) }
            if programStatus != nil { lingering += 1 }
            var info = siginfo_t()
            var second = timespec(tv_sec: 1, tv_nsec: 0)
            if sigtimedwait(&waited, &info, &second) == SIGHUP {
                kill(0, SIGKILL)  // the group: the program, its children, this guard
            }
        }
    }
}
