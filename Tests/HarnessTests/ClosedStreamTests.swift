import BenchCore
import Foundation
import Testing

/// A stdout or stderr that cannot be written (a pipe whose reader left, a closed descriptor)
/// must not end a run: the lines are dropped, every file is written, no scratch is left.
/// The real `bench` binary, spawned as a shell would with `2>&-` or `2>&1 >/dev/null | head -c 20`.
@Suite(.serialized) struct ClosedStreamTests {
    /// Where the spawned bench's stdout or stderr leads.
    enum Destination {
        /// A file in the test's folder (read back afterwards).
        case file(String)
        /// A pipe whose read end is closed before bench starts: every write fails with EPIPE
        /// (or raises SIGPIPE), as after `| head -c 20` has read its 20 bytes.
        case pipeWithoutReader
        /// No descriptor at all (`2>&-`).
        case closed
    }

    struct Finished {
        /// The exit status, or nil when bench died of a signal.
        var status: Int32?
        var signal: Int32?
    }

    /// Spawns `bench arguments...` in `folder` (its cwd), with TMPDIR `folder/tmp`, `environment`
    /// added, default signal dispositions and no signal blocked (as a shell starts it), and waits.
    static func run(
        _ arguments: [String],
        in folder: URL,
        stdout: Destination,
        stderr: Destination,
        environment extra: [String: String] = [:],
        limit: TimeInterval = 300
    ) throws -> Finished {
        let scratch = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var writeEnds: [Int32] = []
        defer { for descriptor in writeEnds { close(descriptor) } }
        for (descriptor, destination) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch destination {
            case .file(let name):
                posix_spawn_file_actions_addopen(
                    &actions,
                    descriptor,
                    folder.appendingPathComponent(name).path,
                    O_WRONLY | O_CREAT | O_TRUNC,
                    0o644
                )
            case .pipeWithoutReader:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
                close(ends[0])  // no reader, ever
                _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)  // only as the child's descriptor 1 or 2
                writeEnds.append(ends[1])
                posix_spawn_file_actions_adddup2(&actions, ends[1], descriptor)
            case .closed:
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noMask = sigset_t()
        var defaults = sigset_t()
        sigemptyset(&noMask)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["TMPDIR"] = scratch.path
        let argv =
            (["/usr/bin/env", "-C", folder.path, BenchProcess.executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }

        let deadline = Date().addingTimeInterval(limit)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                Issue.record("bench did not exit within \(Int(limit)) s")
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(20_000)
        }
        let signal = status & 0x7f
        return signal == 0 ? Finished(status: (status >> 8) & 0xff, signal: nil) : Finished(status: nil, signal: signal)
    }

    static func rows(_ url: URL) throws -> [[String]] {
        try CSV.parse(String(contentsOf: url, encoding: .utf8)).filter { !($0.count == 1 && $0[0].isEmpty) }
    }

    /// Every file of a two-run `bench run` with every row, and nothing bench-* left in TMPDIR.
    static func expectWholeRun(in folder: URL, _ finished: Finished, _ note: String) throws {
        #expect(finished.signal == nil && finished.status == 0, "\(note): \(finished)")
        let out = folder.appendingPathComponent("out")
        for name in ["trials.csv", "timeline.csv", "summary.csv", "trials.json"] {
            #expect(
                FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path),
                "\(note): \(name) missing"
            )
        }
        let trials = (try? rows(out.appendingPathComponent("trials.csv"))) ?? []
        #expect(trials.count == 3, "\(note): a header and both runs: \(trials.count) rows")
        let json =
            (try? JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("trials.json"))))
            as? [String: Any]
        #expect((json?["trials"] as? [Any])?.count == 2, "\(note): both runs in trials.json")
        let scratch =
            (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path)) ?? []
        #expect(scratch.filter { $0.hasPrefix("bench-") }.isEmpty, "\(note): scratch left: \(scratch)")
    }

    static let twoQuickRuns = [
        "run", "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "2",
        "--width", "960", "--height", "640", "--out", "out",
    ]

    /// With stderr a pipe nobody reads, the run goes on: every run, every file, and the summary on stdout.
    @Test func aStderrWithoutReaderLosesNothing() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let finished = try Self.run(
            Self.twoQuickRuns,
            in: folder,
            stdout: .file("stdout.txt"),
            stderr: .pipeWithoutReader
        )
        try Self.expectWholeRun(in: folder, finished, "stderr a pipe without reader")
        let summary = (try? String(contentsOf: folder.appendingPathComponent("stdout.txt"), encoding: .utf8)) ?? ""
        #expect(
            summary.contains("Cells ranked by median peak RSS delta"),
            "the summary still goes to stdout: \(summary)"
        )
    }

    /// With fd 2 closed, every row is kept, and no progress line lands in a file that took descriptor 2.
    @Test func aClosedStderrLosesNothing() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let finished = try Self.run(Self.twoQuickRuns, in: folder, stdout: .file("stdout.txt"), stderr: .closed)
        try Self.expectWholeRun(in: folder, finished, "stderr closed")
        // Nothing meant for stderr lands in a file that took descriptor 2.
        let trialsCSV =
            (try? String(contentsOf: folder.appendingPathComponent("out/trials.csv"), encoding: .utf8)) ?? ""
        #expect(
            !trialsCSV.contains("[2/2]") && !trialsCSV.contains("[1/2]"),
            "progress lines in trials.csv: \(trialsCSV)"
        )
    }

    /// With stdout and stderr pipes nobody reads, or both closed, the run still ends with status 0 and every file.
    @Test func aStdoutWithoutReaderAndNoStderrLoseNothing() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let finished = try Self.run(
            Self.twoQuickRuns,
            in: folder,
            stdout: .pipeWithoutReader,
            stderr: .pipeWithoutReader
        )
        try Self.expectWholeRun(in: folder, finished, "stdout and stderr pipes without reader")
        let closed = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: closed) }
        let both = try Self.run(Self.twoQuickRuns, in: closed, stdout: .closed, stderr: .closed)
        try Self.expectWholeRun(in: closed, both, "stdout and stderr closed")
    }

    /// A usage error still gets its own status when nobody reads its message.
    @Test func aUsageErrorWithoutReaderIsStill64() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let finished = try Self.run(
            ["run", "--runs", "0"],
            in: folder,
            stdout: .pipeWithoutReader,
            stderr: .pipeWithoutReader
        )
        #expect(finished.signal == nil && finished.status == 64, "\(finished)")
    }
}
