import Foundation
import Harness
import TestSupport

/// The real `bench` started as a shell starts it, through the harness's own launcher
/// (`ChildProcess.spawn`): in `folder` (its working directory, by `env -C`: runs/ is relative to
/// it), with TMPDIR `folder/tmp` (scratch and rescue folders), default signal dispositions and no
/// signal blocked. Foundation's Process would pass on the test thread's blocked signals, and a
/// blocked SIGTERM would never reach a bench that does not unblock it either.
enum ShellStartedBench {
    /// Where the spawned bench's stdout or stderr leads.
    enum Destination {
        /// A file in `folder` (read back afterwards).
        case file(String)
        /// A pipe whose read end is closed before bench starts: every write fails with EPIPE
        /// (or raises SIGPIPE), as after `| head -c 20` has read its 20 bytes.
        case pipeWithoutReader
        /// No descriptor at all (`2>&-`).
        case closed
    }

    /// Starts `bench arguments...`; the caller waits for it with `reap`.
    static func spawn(
        _ arguments: [String],
        in folder: URL,
        stdout: Destination,
        stderr: Destination,
        environment extra: [String: String] = [:]
    ) throws -> pid_t {
        let scratch = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var writeEnds: [Int32] = []
        defer { for descriptor in writeEnds { close(descriptor) } }
        func descriptor(_ destination: Destination) throws -> ChildProcess.Descriptor {
            switch destination {
            case .file(let name):
                return .file(folder.appendingPathComponent(name).path, flags: O_WRONLY | O_CREAT | O_TRUNC)
            case .pipeWithoutReader:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
                close(ends[0])  // no reader, ever
                _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)  // only as the child's descriptor 1 or 2
                writeEnds.append(ends[1])
                return .ours(ends[1])
            case .closed:
                return .closed
            }
        }
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["TMPDIR"] = scratch.path
        return try ChildProcess.spawn(
            executable: "/usr/bin/env",
            arguments: ["-C", folder.path, BenchProcess.executable] + arguments,
            environment: environment,
            descriptors: [.file("/dev/null", flags: O_RDONLY), try descriptor(stdout), try descriptor(stderr)]
        )
    }

    /// How a reaped bench ended: its exit status, or the signal it died of.
    struct Ended {
        var status: Int32?
        var signal: Int32?
    }

    /// Reaps `pid` if it has ended (without waiting unless `waiting`); nil while it runs.
    static func reap(_ pid: pid_t, waiting: Bool = false) -> Ended? {
        var status: Int32 = 0
        guard waitpid(pid, &status, waiting ? 0 : WNOHANG) == pid else { return nil }
        Interruption.childEnded(pid)
        let signal = status & 0x7f
        return signal == 0 ? Ended(status: (status >> 8) & 0xff, signal: nil) : Ended(status: nil, signal: signal)
    }
}
