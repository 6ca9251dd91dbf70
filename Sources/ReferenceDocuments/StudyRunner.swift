import BenchCore
import Dispatch
import Foundation
import Harness
import Report
import Synchronization

/// Runs study steps in order, each program as a child of this process, in a process group of its
/// own, inheriting stdin and stderr (and stdout unless the step captures it).
///
/// Stopping a study (`handleStopSignals`): the first SIGINT, SIGTERM or SIGHUP is passed on to the
/// running step's group (SIGHUP as SIGTERM: the step's guard reads SIGHUP as the tool's death), which
/// winds down as it would at a terminal (bench writes what it measured, a script runs its traps), and
/// no further step starts; a second kills the group. A step that ends by SIGINT, SIGTERM or SIGHUP
/// (Ctrl-C reaches it directly while it holds the terminal) stops the study whatever it tolerates.
package enum StudyRunner {
    /// Why a study stopped: the step, and the status the caller should exit with.
    package struct Failure: Error, CustomStringConvertible {
        package var step: StudyStep
        package var reason: String
        /// The failed program's own status, 128 + N when signal N stopped the study, or 70 when the
        /// step could not be carried out at all.
        package var status: Int32
        package var description: String { "\(step.shellLine): \(reason)" }
    }

    /// The running step's process group (its pid), 0 between steps.
    private static let runningGroup = Atomic<Int32>(0)
    /// The group the first stop signal was passed on to: each step gets it once.
    private static let stoppedGroup = Atomic<Int32>(0)
    private static let stopSignals = Atomic<Int>(0)
    private static let firstStopSignal = Atomic<Int32>(0)
    private static let sources = Mutex<[any DispatchSourceSignal]>([])

    /// The statuses of a program that a stop signal ended, or that stopped on one as bench does.
    static let stoppedStatuses: Set<Int32> = [128 + SIGINT, 128 + SIGTERM, 128 + SIGHUP]

    /// Takes SIGINT, SIGTERM and SIGHUP as stop requests (see the type's comment). Idempotent.
    package static func handleStopSignals() {
        sources.withLock { installed in
            guard installed.isEmpty else { return }
            // Taking the terminal back from a step's group after it ends is a background write.
            signal(SIGTTOU, SIG_IGN)
            // A reader of stderr that is gone (`| head`) must not end the tool mid-study by SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            installed = Interruption.signalSources(for: Interruption.handledSignals, handler: stopReceived)
        }
    }

    static func stopReceived(_ number: Int32) {
        let seen = stopSignals.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        let name = Interruption.name(of: number)
        if seen == 1 {
            firstStopSignal.store(number, ordering: .releasing)
            StandardError.write(
                "\nbench-reference: \(name) received: stopping the running step (it ends as at a terminal's "
                    + "Ctrl-C; send it again to kill it); no further step starts\n"
            )
            passStopOn(to: runningGroup.load(ordering: .acquiring))
        } else {
            StandardError.write("\nbench-reference: \(name) again: killing the running step\n")
            let group = runningGroup.load(ordering: .acquiring)
            if group > 0 { kill(-group, SIGKILL) }
        }
    }

    /// Sends the first stop signal to `group`, once per group.
    private static func passStopOn(to group: Int32) {
        let signal = firstStopSignal.load(ordering: .acquiring)
        guard group > 0, signal != 0,
            stoppedGroup.exchange(group, ordering: .acquiringAndReleasing) != group
        else { return }
        kill(-group, signal == SIGHUP ? SIGTERM : signal)
    }

    /// The stop signal received, if any.
    static var stopSignal: Int32? {
        let signal = firstStopSignal.load(ordering: .acquiring)
        return signal == 0 ? nil : signal
    }

    /// Runs `steps` in order; `announce` is called with each step's shell line before it runs. With
    /// `tool` (the bench-reference binary), each program runs under its `StepGuard`.
    package static func run(
        _ steps: [StudyStep],
        tool: String? = nil,
        announce: (String) -> Void = { _ in }
    ) throws(Failure) {
        for step in steps {
            if let signal = stopSignal {
                throw Failure(step: step, reason: "not started: \(Interruption.name(of: signal))", status: 128 + signal)
            }
            announce(step.shellLine)
            try perform(step, tool: tool)
        }
    }

    static func perform(_ step: StudyStep, tool: String?) throws(Failure) {
        let files = FileManager.default
        do {
            switch step {
            case .run(let arguments, let environment, let tolerated, let output):
                let command = tool.map { StepGuard.guarding(arguments, tool: $0) } ?? arguments
                let partial = output.map { "\($0).partial-\(getpid())" }
                defer { if let partial { try? files.removeItem(atPath: partial) } }
                let status = try launch(command, environment: environment, output: partial)
                if let signal = stopSignal {
                    let name = Interruption.name(of: signal)
                    throw Failure(step: step, reason: "stopped by \(name) (status \(status))", status: 128 + signal)
                }
                if stoppedStatuses.contains(status) {
                    throw Failure(step: step, reason: "stopped by a signal (status \(status))", status: status)
                }
                guard status == 0 || tolerated.contains(status) else {
                    let reason = status > 128 ? "was killed by signal \(status - 128)" : "exited with status \(status)"
                    throw Failure(step: step, reason: "\(reason) (status \(status))", status: status)
                }
                if let output, let partial, rename(partial, output) != 0 {
                    let error = String(cString: strerror(errno))
                    throw Failure(step: step, reason: "cannot rename \(partial) to \(output): \(error)", status: 70)
                }
            case .copy(let from, let to):
                // Replaced atomically: a copy that fails leaves the destination as it was.
                try AtomicFile.write(Data(contentsOf: URL(fileURLWithPath: from)), to: URL(fileURLWithPath: to))
            case .remove(let path):
                if files.fileExists(atPath: path) { try files.removeItem(atPath: path) }
            case .makeFolder(let path):
                try files.createDirectory(atPath: path, withIntermediateDirectories: true)
            case .recordProvenance(let study, let binary, let bench, let folder):
                let entry = ReferenceProvenance.entry(binary: binary, checkoutOf: bench)
                try ReferenceProvenance.record(entry, study: study, in: URL(fileURLWithPath: folder))
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(step: step, reason: "\(error)", status: 70)
        }
    }

    /// The program's exit status; a program killed by signal N reads as 128 + N, as the shell says it,
    /// and a wait that fails as 70. Started through the harness's one launcher (`ChildProcess.spawn`:
    /// a process group of its own, no descriptor but 0-2). A step's guard dies when the thread that
    /// spawned it ends (PR_SET_PDEATHSIG), so this spawns and waits on the calling thread.
    static func launch(_ arguments: [String], environment: [String: String], output: String?) throws -> Int32 {
        guard let program = arguments.first else { return 0 }
        let executable = program.contains("/") ? program : "/usr/bin/env"
        let rest = program.contains("/") ? Array(arguments.dropFirst()) : arguments
        let standardOutput: ChildProcess.Descriptor =
            output.map { .file($0, flags: O_WRONLY | O_CREAT | O_TRUNC) } ?? .ours(1)
        let foreground = isatty(0) != 0 && tcgetpgrp(0) == getpgrp()
        let pid = try ChildProcess.spawn(
            executable: executable,
            arguments: rest,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            descriptors: [.ours(0), standardOutput, .ours(2)]
        )
        runningGroup.store(pid, ordering: .releasing)
        passStopOn(to: pid)  // a stop that came while it was being started
        // Until it is reaped its pid, so its group's id, cannot be reused: wait without reaping first.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        runningGroup.store(0, ordering: .releasing)
        // Whatever is left in its group (the guard killed by SIGKILL, a script's background child) goes
        // with it; the group's id is still its own until the reap below.
        kill(-pid, SIGKILL)
        if foreground { tcsetpgrp(0, getpgrp()) }  // the guard gave the terminal to the step's group
        defer { Interruption.childEnded(pid) }
        return waitForExit(pid)
    }

    /// Reaps `pid`: its exit status, 128 + N when signal N ended it, as the shell says it, or 70 when
    /// it cannot be waited for.
    static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return BenchExitCode.internalError.rawValue }
        }
        return shellStatus(status)
    }

    /// A wait status as the shell says it: the exit status, or 128 + N when signal N ended it.
    package static func shellStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
