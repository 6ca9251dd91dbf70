import Foundation
import Synchronization

#if canImport(Glibc)
import BenchCore
import CChildGuard
import Glibc
#endif

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
///
/// A child must not outlive a parent that dies without cleaning up (SIGKILL, the OOM killer, a CI
/// runner's timeout): it holds only the descriptors it is given (everything else is closed in the
/// spawn, the loopback server's listening socket included, which SwiftNIO opens without
/// close-on-exec), and it finds its parent's pid and its own backstop in its environment
/// (`parentVariable`, `backstopVariable`), which `ChildGuard` arms first thing in the child.
/// swift-subprocess is not used because it closes every descriptor above 2 in the child.
package enum ChildProcess {
    package static let reportDescriptor: Int32 = 3
    /// The parent's pid, for the child to check that it has not been orphaned already.
    package static let parentVariable = "BENCH_PARENT_PID"
    /// Seconds after which a measured child ends by itself: the parent's limit plus `backstopMarginSeconds`,
    /// so that the parent's kill decides first and a slow run stays the parent's `timeout` row.
    package static let backstopVariable = "BENCH_CHILD_BACKSTOP_SECONDS"
    package static let backstopMarginSeconds = 5.0

    /// Where one of a child's descriptors comes from: a file opened in the spawn (created readable
    /// by all, writable by its owner, when the flags create it), one of ours, or none (`2>&-`).
    package enum Descriptor: Sendable {
        case file(String, flags: Int32)
        case ours(Int32)
        case closed
    }

    /// `during`, when given, runs on a thread of its own once the child has started, with its pid;
    /// when it returns, the child is sent SIGINT (a long-lived child, such as the image server, ends
    /// on it and reports), and this thread goes on reading its report until it exits or the deadline.
    /// A child that `endsOnInterrupt` is sent the run's first SIGINT, SIGTERM or SIGHUP as SIGINT and
    /// read to its end; the second signal kills it as any child.
    package static func run(
        executable: String,
        arguments: [String],
        environment: [String: String],
        timeoutSeconds: Double,
        endsOnInterrupt: Bool = false,
        during: (@Sendable (pid_t) -> Void)? = nil
    ) throws -> ChildProcessOutput {
        var environment = environment
        environment[parentVariable] = String(getpid())
        environment[backstopVariable] = String(timeoutSeconds + backstopMarginSeconds)
        // The child's death signal (ChildGuard) comes when the *thread* that spawned it ends, not
        // the process. This function spawns, waits and reaps on the calling thread and returns only
        // once the child is gone, so a --jobs worker thread never ends while its child runs. Keep it
        // so: a child spawned from a thread that may end first would be killed with that thread.
        // The deadline is taken before the spawn, on a monotonic clock: the child's backstop counts from
        // its own start, after this, so the parent's deadline always comes first, even for a parent
        // stopped (SIGSTOP, a loaded machine) between the spawn and its next line.
        let deadline = ContinuousClock.now.advanced(by: .seconds(timeoutSeconds))
        // Pipes and spawn under one lock: with --jobs, a child spawned by another thread between
        // pipe() and FD_CLOEXEC would inherit this child's write ends, and its reader would never see EOF.
        let (pid, reportPipe, errorPipe) = try spawnLock.withLock { _ in
            try spawnWithPipes(
                executable: executable,
                arguments: arguments,
                environment: environment,
                endsOnInterrupt: endsOnInterrupt
            )
        }
        let interruption: @Sendable () -> Bool = {
            endsOnInterrupt ? Interruption.requestedTwice : Interruption.requested
        }
        let readEnds = [reportPipe.read, errorPipe.read]
        defer { for descriptor in readEnds { close(descriptor) } }
        // `during` is joined before the child is reaped, so its pid cannot be reused while `during`
        // may still signal it; a `during` sees a child that ended early with `hasEnded(pid)`.
        let companion = during.map { body in
            CompanionThread {
                body(pid)
                kill(pid, SIGINT)
            }
        }

        var report = Data()
        var standardError = Data()
        let drained = drain(
            reportPipe.read,
            into: &report,
            and: errorPipe.read,
            into: &standardError,
            until: deadline,
            interrupted: interruption
        )
        var timedOut = drained == .deadline
        var interrupted = drained == .interrupted
        if let companion {
            if drained != .finished { kill(-pid, SIGKILL) }
            companion.join()
        }
        var status: Int32 = 0
        // Both pipes are closed; the child should be exiting. Give it until the deadline. It is reaped
        // only after `Interruption` has forgotten it: until then its pid, and so its process group's
        // id, cannot be reused, and a signal's kill reaches only what it started.
        while !hasEnded(pid) {
            if !interrupted && interruption() { interrupted = true }
            if interrupted || timedOut || ContinuousClock.now >= deadline {
                timedOut = !interrupted
                kill(-pid, SIGKILL)  // the child's process group, whatever it started included
                kill(pid, SIGKILL)
                break
            }
            usleep(1000)
        }
        Interruption.childEnded(pid)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signaled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
        // A child that failed without a report past the deadline ran out of time, whichever of its
        // end and the deadline this thread saw first (a stopped parent, continued, finds both at
        // once: the child ended by its own backstop).
        let succeeded = !signaled && (status >> 8) & 0xff == 0
        if !timedOut && !interrupted && !succeeded && report.isEmpty && ContinuousClock.now >= deadline {
            timedOut = true
        }
        return ChildProcessOutput(
            pid: pid,
            report: report,
            standardError: standardError,
            exitStatus: signaled ? nil : (status >> 8) & 0xff,
            terminatingSignal: signaled ? status & 0x7f : nil,
            timedOut: timedOut,
            interrupted: interrupted
        )
    }

    private static let spawnLock = Mutex<Void>(())

    /// Starts the child with its report and error pipes; returns its pid and the pipes (write ends closed).
    private static func spawnWithPipes(
        executable: String,
        arguments: [String],
        environment: [String: String],
        endsOnInterrupt: Bool
    ) throws
        -> (pid: pid_t, report: (read: Int32, write: Int32), error: (read: Int32, write: Int32))
    {
        let reportPipe = try makePipe()
        let errorPipe: (read: Int32, write: Int32)
        do { errorPipe = try makePipe() } catch {
            close(reportPipe.read)
            close(reportPipe.write)
            throw error
        }
        defer {
            close(reportPipe.write)
            close(errorPipe.write)
        }
        do {
            let pid = try spawn(
                executable: executable,
                arguments: arguments,
                environment: environment,
                descriptors: [
                    .file("/dev/null", flags: O_RDONLY), .file("/dev/null", flags: O_WRONLY),
                    .ours(errorPipe.write), .ours(reportPipe.write),
                ],
                endsOnInterrupt: endsOnInterrupt
            )
            return (pid, reportPipe, errorPipe)
        } catch {
            close(reportPipe.read)
            close(errorPipe.read)
            throw error
        }
    }

    /// Starts `executable` with `descriptors` as its 0, 1, 2... and no other descriptor (every
    /// one above is closed in the spawn: a third party's descriptor without close-on-exec
    /// included), default dispositions for the signals the parent handles, an empty signal mask,
    /// and a process group of its own (its pid), which `Interruption` kills on a signal; with
    /// `ownProcessGroup` false, the caller's group (bench-reference's step guard, which kills its group).
    /// The caller reaps it and calls `Interruption.childEnded`.
    package static func spawn(
        executable: String,
        arguments: [String],
        environment: [String: String],
        descriptors: [Descriptor],
        ownProcessGroup: Bool = true,
        endsOnInterrupt: Bool = false
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Ours first: a file opened on a low number must not replace one of ours not yet duplicated.
        for case (let target, .ours(let descriptor)) in descriptors.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(target))
        }
        for case (let target, .file(let path, let flags)) in descriptors.enumerated() {
            posix_spawn_file_actions_addopen(&actions, Int32(target), path, flags, 0o644)
        }
        for case (let target, .closed) in descriptors.enumerated() {
            posix_spawn_file_actions_addclose(&actions, Int32(target))
        }
        let closing = childguard_spawn_close_from(&actions, Int32(descriptors.count))
        guard closing == 0 else { throw ChildProcessError.spawn(executable: executable, errno: closing) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaultSignals, signal) }
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setsigmask(&attributes, &noMask)
        posix_spawnattr_setpgroup(&attributes, 0)
        let group = ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | group))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }

        var pid: pid_t = 0
        let spawnStatus = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawnStatus == 0 else { throw ChildProcessError.spawn(executable: executable, errno: spawnStatus) }
        Interruption.childStarted(pid, endsOnInterrupt: endsOnInterrupt)
        return pid
    }

    /// Whether `pid`, a child of ours, has ended, without reaping it: until the caller's waitpid its
    /// pid, and so its process group's id, cannot be reused, and `kill(-pid, ...)` reaches only the
    /// processes it started.
    package static func hasEnded(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 { return errno != EINTR }
        return info._sifields._sigchld.si_pid == pid
    }

    /// Limits a child of ours to `bytes` of RLIMIT_DATA (heap, private mappings, thread stacks):
    /// over it an allocation fails. 0, or the error number.
    package static func limitData(of pid: pid_t, to bytes: Int) -> Int32 {
        childguard_limit_data(pid, UInt64(bytes))
    }

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        // pipe2 is not exported to Swift; callers hold `spawnLock`, so setting close-on-exec
        // right after pipe() cannot race with another spawn of ours.
        guard pipe(&descriptors) == 0 else {
            throw ChildProcessError.pipe(errno: errno)
        }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    enum DrainEnd { case finished, deadline, interrupted }

    /// Reads both pipes until both reach end of file, the deadline passes, or the run is interrupted.
    private static func drain(
        _ first: Int32,
        into firstData: inout Data,
        and second: Int32,
        into secondData: inout Data,
        until deadline: ContinuousClock.Instant,
        interrupted: () -> Bool
    ) -> DrainEnd {
        var open = [first: true, second: true]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.values.contains(true) {
            if interrupted() { return .interrupted }
            let remaining = ContinuousClock.now.duration(to: deadline) / .seconds(1)
            if remaining <= 0 { return .deadline }
            var polled = open.filter(\.value).map { pollfd(fd: $0.key, events: Int16(POLLIN), revents: 0) }
            // A short poll so that an interruption is seen within 50 ms.
            let ready = poll(&polled, nfds_t(polled.count), Int32(min(remaining, 0.05) * 1000) + 1)
            if ready < 0 && errno != EINTR { return .deadline }
            for entry in polled where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == first {
                        firstData.append(buffer, count: count)
                    } else {
                        secondData.append(buffer, count: count)
                    }
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

/// A thread that runs one closure and can be waited for.
private final class CompanionThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [finished] in
            body()
            finished.signal()
        }
        thread.start()
    }

    func join() { finished.wait() }
}
