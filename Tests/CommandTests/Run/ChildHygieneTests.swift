import BenchCore
import Foundation
import Harness
import TestSupport
import Testing

/// A measured child (`bench _trial`, `bench _list-scroll`) never outlives a parent that died without
/// cleaning up (SIGKILL, the OOM killer, a CI runner's timeout), holds none of the parent's
/// descriptors, and ends by itself when nobody is left to kill it at `--timeout`. Real processes:
/// the real `bench` binary, its real children, real signals; every wait is bounded, and whatever
/// a failing test leaves running is killed before it returns.
@Suite(.serialized) struct ChildHygieneTests {
    typealias RunningBench = RowsKeptTests.RunningBench

    /// One run of `strategy` on the embedded fixture paced at 100 kB/s: its trial lasts seconds.
    static func slowRun(_ strategy: String, _ extra: [String] = []) -> [String] {
        [
            "run", "--strategy", strategy, "--render", "none", "--allocator", "system", "--runs", "1",
            "--bandwidth", "100k", "--out", "out",
        ] + extra
    }

    /// A process's command line, its arguments joined by spaces ("" when it is gone).
    static func commandLine(_ pid: Int32) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return "" }
        return String(decoding: data.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    /// The live processes (zombies excluded) whose command line holds `marker`.
    static func processes(mentioning marker: String) -> [Int32] {
        RunningBench.processes().map(\.pid)
            .filter { $0 != getpid() && RunningBench.isAlive($0) && commandLine($0).contains(marker) }
    }

    /// Waits (bounded) for a child of `bench` that runs `subcommand`: exec'd, past the spawn.
    static func waitForChild(
        of bench: RunningBench,
        running subcommand: String = "_trial",
        limit: TimeInterval = 60
    ) -> Int32? {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline && bench.isRunning {
            if let child = bench.children.first(where: { commandLine($0).contains(" \(subcommand) ") }) { return child }
            usleep(5_000)
        }
        return nil
    }

    /// The processes among `pids` still alive after `limit` seconds (polled every 10 ms).
    static func survivors(_ pids: [Int32], within limit: TimeInterval) -> [Int32] {
        let deadline = Date().addingTimeInterval(limit)
        var alive = pids.filter(RunningBench.isAlive)
        while !alive.isEmpty && Date() < deadline {
            usleep(10_000)
            alive = alive.filter(RunningBench.isAlive)
        }
        return alive
    }

    /// A process's descriptors and what each is ("socket:[123]", "pipe:[456]", a path).
    static func descriptors(of pid: Int32) -> [Int32: String] {
        let folder = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var found: [Int32: String] = [:]
        for name in names {
            guard let number = Int32(name),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(name)")
            else { continue }
            found[number] = target
        }
        return found
    }

    /// Each thread of `pid`: its name, state and where it waits in the kernel (for a failure's message).
    static func threadStates(_ pid: Int32) -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.sorted().map { task in
            let folder = "/proc/\(pid)/task/\(task)"
            let read = { (name: String) in
                ((try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let stat = read("stat")
            let state = stat.lastIndex(of: ")").map { stat[stat.index($0, offsetBy: 2)...].prefix(1) } ?? "?"
            return "\(task) \(read("comm")) \(state) \(read("wchan"))"
        }
        .joined(separator: ", ")
    }

    static func killAll(_ pids: [Int32]) {
        for pid in pids { kill(pid, SIGKILL) }
    }

    // MARK: Descriptors

    /// A trial child holds only 0-3 of its parent's descriptors: none of the parent's sockets and
    /// pipes (a socket or pipe is the same one in two processes when its inode is), the loopback
    /// server's listening socket included, which SwiftNIO opens without close-on-exec.
    @Test func aTrialChildHoldsNoneOfItsParentsOtherDescriptors() throws {
        let bench = try RunningBench(Self.slowRun("curl-memory"))
        defer {
            bench.signal(SIGKILL)
            _ = bench.wait()
        }
        let child = try #require(Self.waitForChild(of: bench), "a trial starts: \(bench.standardError)")
        let parents = Self.descriptors(of: bench.pid)
        let shareable = parents.values.filter { $0.hasPrefix("socket:[") || $0.hasPrefix("pipe:[") }
        #expect(shareable.contains { $0.hasPrefix("socket:[") }, "the parent holds its server's sockets: \(parents)")
        let childs = Self.descriptors(of: child)
        #expect(!childs.isEmpty, "the child's descriptors were read")
        let inherited = childs.filter { $0.key > 3 && shareable.contains($0.value) }
        #expect(inherited.isEmpty, "the child holds the parent's \(inherited.sorted { $0.key < $1.key })")
    }

    // MARK: A parent killed without cleaning up

    /// SIGKILL on `bench run` as soon as its trial child runs: the child is gone within 2 s, with a
    /// URLSession strategy and a libcurl one (whose request would otherwise wait forever in the
    /// queue of a listening socket only the orphan still holds).
    @Test(arguments: ["download", "curl-memory"])
    func aTrialChildDiesWithItsKilledParent(strategy: String) throws {
        let bench = try RunningBench(Self.slowRun(strategy))
        let child = Self.waitForChild(of: bench)
        bench.signal(SIGKILL)
        _ = bench.wait()
        #expect(child != nil, "a trial started: \(bench.standardError)")
        let left = Self.survivors(Self.processes(mentioning: bench.folder.path), within: 2)
        Self.killAll(left)
        #expect(left.isEmpty, "still running 2 s after their parent was killed: \(left.map(Self.commandLine))")
    }

    /// The same for `bench scenario list-scroll`'s child.
    @Test func aScenarioChildDiesWithItsKilledParent() throws {
        let bench = try RunningBench([
            "scenario", "list-scroll", "--sizes", "64x48", "--rows", "4", "--visible", "2",
            "--strategy", "data", "--bandwidth", "1k", "--out", "out",
        ])
        let child = Self.waitForChild(of: bench, running: "_list-scroll")
        bench.signal(SIGKILL)
        _ = bench.wait()
        #expect(child != nil, "a scroll started: \(bench.standardError)")
        let left = Self.survivors(Self.processes(mentioning: bench.folder.path), within: 2)
        Self.killAll(left)
        #expect(left.isEmpty, "still running 2 s after their parent was killed: \(left.map(Self.commandLine))")
    }

    /// A child whose parent is not the pid it was given (the parent died before the child could ask
    /// for its death signal, and another process adopted it) leaves at once, before reading its
    /// spec; one whose parent is that pid goes on (and here stops at the missing spec).
    @Test func aChildWhoseParentIsAlreadyGoneLeavesAtOnce() throws {
        let spec = ["_trial", "--spec-file", "/nonexistent/child-spec.json"]
        let orphan = try BenchProcess.run(spec, extraEnvironment: ["BENCH_PARENT_PID": "1"], timeout: 60)
        #expect(orphan.status == BenchExitCode.internalError.rawValue, "\(orphan.status) \(orphan.standardError)")
        #expect(!orphan.standardError.contains("child-spec.json"), "it read its spec: \(orphan.standardError)")
        #expect(
            orphan.standardError.contains("its parent, pid 1 (BENCH_PARENT_PID), is gone"),
            "\(orphan.standardError)"
        )
        let owned = try BenchProcess.run(spec, extraEnvironment: ["BENCH_PARENT_PID": String(getpid())], timeout: 60)
        #expect(owned.standardError.contains("child-spec.json"), "\(owned.status) \(owned.standardError)")
    }

    // MARK: A parent that cannot kill its child

    /// A parent that is alive but cannot kill its child at `--timeout` (stopped with SIGSTOP): the
    /// child ends by itself after the timeout (its backstop: `ChildProcess.backstopMarginSeconds`
    /// later), never before it; the parent, continued, still records the run as its own `timeout` row.
    /// The wait allows the loaded machine of a parallel `make test` time to schedule the ending.
    @Test func aChildEndsByItselfWhenItsParentCannotKillIt() throws {
        let timeout = 2.0
        let bench = try RunningBench(Self.slowRun("curl-memory", ["--timeout", String(timeout)]))
        let child = try #require(Self.waitForChild(of: bench), "a trial starts: \(bench.standardError)")
        let seen = Date()
        bench.signal(SIGSTOP)
        let left = Self.survivors([child], within: timeout + ChildProcess.backstopMarginSeconds + 25)
        let lived = Date().timeIntervalSince(seen)
        let state = left.map(Self.threadStates).joined(separator: "; ")
        bench.signal(SIGCONT)
        Self.killAll(left)
        #expect(left.isEmpty, "the child still runs \(Int(lived)) s after it started, its parent stopped: \(state)")
        #expect(lived > timeout, "the child ended after \(lived) s, before the parent's --timeout \(timeout)")
        #expect(bench.wait() == 3, "\(bench.standardError)")
        let rows = try RowsKeptTests.rows(bench.folder.appendingPathComponent("out/trials.csv"))
        let status = try #require(rows.first?.firstIndex(of: "status"))
        #expect(rows.dropFirst().map { $0[status] } == ["timeout"], "\(rows)")
    }
}
