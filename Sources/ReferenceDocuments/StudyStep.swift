import BenchCore
import CChildGuard
import Dispatch
import Foundation
import Harness

/// One step of re-measuring a study of the committed reference: a program to run, or a file to move.
/// `bench-reference measure` runs a study's steps in order and stops at the first that fails.
package enum StudyStep: Equatable, Sendable {
    /// Runs `arguments[0]` (found on PATH when it has no slash) with the rest as its arguments, with
    /// `environment` added to this process's. `tolerated` are the exit statuses other than 0 that are
    /// data, not failure (a scenario row killed by its memory limit exits 3). `output`: a file its
    /// stdout is written to. `failureIsData`: any status is kept (a comparison that reports a regression).
    case run(
        _ arguments: [String],
        environment: [String: String] = [:],
        tolerated: Set<Int32> = [],
        output: String? = nil,
        failureIsData: Bool = false
    )
    /// Copies a file over another (the destination replaced).
    case copy(from: String, to: String)
    /// Removes a file or folder when it is there.
    case remove(String)
    /// Creates a folder and its parents when missing.
    case makeFolder(String)

    /// The step as a shell line: what `--dry-run` prints, and what a failure names.
    package var shellLine: String {
        switch self {
        case .run(let arguments, let environment, _, let output, let failureIsData):
            let settings = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quoted($0.value))" }
            var line = (settings + arguments.map(Self.quoted)).joined(separator: " ")
            if let output { line += " > \(Self.quoted(output))" }
            if failureIsData { line += " || true" }
            return line
        case .copy(let from, let to): return "cp \(Self.quoted(from)) \(Self.quoted(to))"
        case .remove(let path): return "rm -rf \(Self.quoted(path))"
        case .makeFolder(let path): return "mkdir -p \(Self.quoted(path))"
        }
    }

    /// A word as the shell reads it: bare when it holds only safe characters, else single-quoted.
    static func quoted(_ word: String) -> String {
        let safe = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%"
        )
        if !word.isEmpty, word.unicodeScalars.allSatisfy(safe.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Runs study steps in order, each program as a child of this process that inherits its stdin and
/// stderr (and stdout unless the step captures it).
package enum StudyRunner {
    /// Why a study stopped: the step, and the status the caller should exit with.
    package struct Failure: Error, CustomStringConvertible {
        package var step: StudyStep
        package var reason: String
        /// The failed program's own status, or 70 when the step could not be carried out at all.
        package var status: Int32
        package var description: String { "\(step.shellLine): \(reason)" }
    }

    /// Runs `steps` in order; `announce` is called with each step's shell line before it runs. With
    /// `tool` (the bench-reference binary), each program runs under its `StepGuard`.
    package static func run(
        _ steps: [StudyStep],
        tool: String? = nil,
        announce: (String) -> Void = { _ in }
    ) throws(Failure) {
        for step in steps {
            announce(step.shellLine)
            try perform(step, tool: tool)
        }
    }

    static func perform(_ step: StudyStep, tool: String?) throws(Failure) {
        let files = FileManager.default
        do {
            switch step {
            case .run(let arguments, let environment, let tolerated, let output, let failureIsData):
                let command = tool.map { StepGuard.guarding(arguments, tool: $0) } ?? arguments
                let status = try launch(command, environment: environment, output: output)
                if let signal = Interruption.signalName {
                    throw Failure(step: step, reason: "stopped by \(signal)", status: Interruption.exitStatus)
                }
                if status == 0 || tolerated.contains(status) || failureIsData { return }
                throw Failure(step: step, reason: "exited with status \(status)", status: status)
            case .copy(let from, let to):
                if files.fileExists(atPath: to) { try files.removeItem(atPath: to) }
                try files.copyItem(atPath: from, toPath: to)
            case .remove(let path):
                if files.fileExists(atPath: path) { try files.removeItem(atPath: path) }
            case .makeFolder(let path):
                try files.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(step: step, reason: "\(error)", status: 70)
        }
    }

    /// The program's exit status; a program killed by signal N reads as 128 + N, as the shell says it.
    /// Started through the harness's one launcher (`ChildProcess.spawn`: its own process group, no
    /// descriptor but 0-2), so that a signal to this tool (`Interruption`) kills the step's whole group.
    static func launch(_ arguments: [String], environment: [String: String], output: String?) throws -> Int32 {
        guard let program = arguments.first else { return 0 }
        let executable = program.contains("/") ? program : "/usr/bin/env"
        let rest = program.contains("/") ? Array(arguments.dropFirst()) : arguments
        let standardOutput: ChildProcess.Descriptor =
            output.map { .file($0, flags: O_WRONLY | O_CREAT | O_TRUNC) } ?? .ours(1)
        let pid = try ChildProcess.spawn(
            executable: executable,
            arguments: rest,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            descriptors: [.ours(0), standardOutput, .ours(2)]
        )
        defer { Interruption.childEnded(pid) }
        return waitForExit(pid)
    }

    /// Reaps `pid`: its exit status, or 128 + N when signal N ended it, as the shell says it.
    static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// Between `bench-reference measure` and a step's program: it asks for SIGHUP when the tool dies
/// (PR_SET_PDEATHSIG: SIGKILL and the OOM killer included) and then kills its whole process group,
/// the program and whatever the program started (a script's `bench run`, its children), so that
/// no step runs on when nobody is left to read what it writes. It starts the program in its own
/// process group, which `ChildProcess.spawn` made for it and which the tool's `Interruption` kills.
package enum StepGuard {
    /// The subcommand of bench-reference that runs `run(parent:arguments:)`.
    package static let subcommand = "_step"

    /// The words that start `arguments` under the guard, with `tool` the bench-reference binary.
    package static func guarding(_ arguments: [String], tool: String) -> [String] {
        [tool, subcommand, "--parent", String(getpid()), "--"] + arguments
    }

    /// Runs `arguments` (the program found on PATH) until it ends, and exits with its status
    /// (128 + N when signal N ended it). 70 when the parent is already gone or the program cannot start.
    package static func run(parent: pid_t, arguments: [String]) -> Never {
        setpgid(0, 0)  // a group of its own whoever started it (ChildProcess.spawn already makes one)
        guard childguard_signal_on_parent_death(SIGHUP, parent) == 1 else {
            StandardError.write("bench-reference \(subcommand): its parent, pid \(parent), is gone: leaving\n")
            exit(BenchExitCode.internalError.rawValue)
        }
        for number in [SIGHUP, SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { kill(0, SIGKILL) }  // the process group: the program, its children, this guard
            source.resume()
            sources.append(source)
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
        exit(StudyRunner.waitForExit(pid))
    }

    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
