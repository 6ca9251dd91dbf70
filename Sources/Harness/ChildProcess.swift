#if canImport(Glibc)
import BenchCore
import Glibc
#endif
import Foundation
import Synchronization

/// What a finished child left behind.
package struct ChildProcessOutput: Sendable {
    package var pid: Int32
    /// Bytes the child wrote on its report descriptor (fd 3).
    package var report: Data
    /// The child's stderr, for error messages.
    package var standardError: Data
    package var exitStatus: Int32?
    package var terminatingSignal: Int32?
    package var timedOut: Bool
    /// Killed because the run was interrupted (SIGINT, SIGTERM): not a measurement.
    package var interrupted = false
}

/// Spawns a program with `posix_spawn` (exec, never a fork of the big parent), with fd 3
/// connected to a pipe for its report, stderr captured, stdin and stdout on /dev/null,
/// in its own process group so a terminal's Ctrl-C reaches only the parent. When the run is
/// interrupted (`Interruption`), the child's process group is killed at once instead of waiting
/// out the timeout.
/// swift-subprocess is not used because it closes every descriptor above 2 in the child.
package enum ChildProcess {
    package static let reportDescriptor: Int32 = 3

    package static func run(executable: String, arguments: [String], environment: [String: String],
                           timeoutSeconds: Double) throws -> ChildProcessOutput {
        // Pipes and spawn under one lock: with --jobs, a child spawned by another thread between
        // pipe() and FD_CLOEXEC would inherit this child's write ends, and its reader would never see EOF.
        let (pid, reportPipe, errorPipe) = try spawnLock.withLock { _ in
            try spawn(executable: executable, arguments: arguments, environment: environment)
        }
        let readEnds = [reportPipe.read, errorPipe.read]
        defer { readEnds.forEach { close($0) } }

        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var report = Data(), standardError = Data()
        let drained = drain(reportPipe.read, into: &report, and: errorPipe.read, into: &standardError, until: deadline)
        var timedOut = drained == .deadline
        var interrupted = drained == .interrupted
        var status: Int32 = 0
        // Both pipes are closed; the child should be exiting. Give it until the deadline.
        while waitpid(pid, &status, WNOHANG) == 0 {
            if !interrupted && Interruption.requested { interrupted = true }
            if interrupted || timedOut || Date() >= deadline {
                timedOut = !interrupted
                kill(-pid, SIGKILL)  // the child's process group, whatever it started included
                kill(pid, SIGKILL)
                Interruption.childEnded(pid)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                break
            }
            usleep(1000)
        }
        Interruption.childEnded(pid)
        let signaled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
        return ChildProcessOutput(
            pid: pid, report: report, standardError: standardError,
            exitStatus: signaled ? nil : (status >> 8) & 0xff,
            terminatingSignal: signaled ? status & 0x7f : nil,
            timedOut: timedOut, interrupted: interrupted)
    }

    private static let spawnLock = Mutex<Void>(())

    /// Starts the child with its report and error pipes; returns its pid and the pipes (write ends closed).
    private static func spawn(executable: String, arguments: [String], environment: [String: String]) throws
        -> (pid: pid_t, report: (read: Int32, write: Int32), error: (read: Int32, write: Int32)) {
        let reportPipe = try makePipe()
        let errorPipe: (read: Int32, write: Int32)
        do { errorPipe = try makePipe() } catch {
            close(reportPipe.read); close(reportPipe.write)
            throw error
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errorPipe.write, 2)
        posix_spawn_file_actions_adddup2(&actions, reportPipe.write, reportDescriptor)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        [SIGPIPE, SIGINT, SIGTERM, SIGHUP].forEach { sigaddset(&defaultSignals, $0) }
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setsigmask(&attributes, &noMask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let spawnStatus = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(reportPipe.write)
        close(errorPipe.write)
        guard spawnStatus == 0 else {
            close(reportPipe.read); close(errorPipe.read)
            throw ChildProcessError.spawn(executable: executable, errno: spawnStatus)
        }
        Interruption.childStarted(pid)
        return (pid, reportPipe, errorPipe)
    }

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        // pipe2 is not exported to Swift; callers hold `spawnLock`, so setting close-on-exec
        // right after pipe() cannot race with another spawn of ours.
        guard pipe(&descriptors) == 0 else {
            throw ChildProcessError.pipe(errno: errno)
        }
        descriptors.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    enum DrainEnd { case finished, deadline, interrupted }

    /// Reads both pipes until both reach end of file, the deadline passes, or the run is interrupted.
    private static func drain(_ first: Int32, into firstData: inout Data,
                              and second: Int32, into secondData: inout Data, until deadline: Date) -> DrainEnd {
        var open = [first: true, second: true]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.values.contains(true) {
            if Interruption.requested { return .interrupted }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .deadline }
            var polled = open.filter(\.value).map { pollfd(fd: $0.key, events: Int16(POLLIN), revents: 0) }
            // A short poll so that an interruption is seen within 50 ms.
            let ready = poll(&polled, nfds_t(polled.count), Int32(min(remaining, 0.05) * 1000) + 1)
            if ready < 0 && errno != EINTR { return .deadline }
            for entry in polled where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == first { firstData.append(buffer, count: count) } else { secondData.append(buffer, count: count) }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    open[entry.fd] = false
                }
            }
        }
        return .finished
    }
}

package enum ChildProcessError: Error, CustomStringConvertible, Equatable {
    /// posix_spawn failed.
    case spawn(executable: String, errno: Int32)
    /// pipe() failed.
    case pipe(errno: Int32)
    /// A trial asked for jemalloc and no libjemalloc.so.2 was found to preload.
    case jemallocNotFound

    package var description: String {
        switch self {
        case .spawn(let executable, let errno): return "cannot start \(executable): \(String(cString: strerror(errno)))"
        case .pipe(let errno): return "cannot create a pipe: \(String(cString: strerror(errno)))"
        case .jemallocNotFound:
            return "jemalloc requested but libjemalloc.so.2 was not found (install libjemalloc-dev: scripts/setup.sh)"
        }
    }
}
