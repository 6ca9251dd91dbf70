import BenchCore
import Foundation
import LoopbackServer
import Report
import TestSupport
import Testing

/// Nothing measured is lost and nothing is left behind: the real `bench` binary, real children and
/// real signals where a run is stopped; a real unwritable folder and a real full tmpfs under commands
/// run in-process (`InProcessBench`, recorded children). Each test fails on the behaviour it guards
/// against (named in its comment).
@Suite(.serialized) struct RowsKeptTests {
    static let quick = ["--strategy", "data", "--render", "none", "--allocator", "system"]

    /// A `bench` process started in a folder of its own as a shell starts it (`ShellStartedBench`),
    /// signalled and waited on.
    final class RunningBench {
        let folder: URL
        let scratch: URL
        let outputFile: URL
        let errorFile: URL
        let pid: Int32
        private var ended: ShellStartedBench.Ended?

        init(
            _ arguments: [String],
            folder: URL = BenchProcess.temporaryFolder(),
            extraEnvironment: [String: String] = [:]
        ) throws {
            self.folder = folder
            scratch = folder.appendingPathComponent("tmp")
            outputFile = folder.appendingPathComponent("stdout.txt")
            errorFile = folder.appendingPathComponent("stderr.txt")
            pid = try ShellStartedBench.spawn(
                arguments,
                in: folder,
                stdout: .file("stdout.txt"),
                stderr: .file("stderr.txt"),
                environment: extraEnvironment
            )
        }

        var isRunning: Bool {
            if ended == nil { ended = ShellStartedBench.reap(pid) }
            return ended == nil
        }

        private var exitStatus: Int32? { ended?.status }

        var standardError: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }
        var standardOutput: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

        func signal(_ number: Int32) { kill(pid, number) }

        /// Waits for the exit (bounded: a run still going after `limit` seconds is killed and the
        /// test fails). Returns the exit status, or nil when the process died of a signal.
        func wait(limit: TimeInterval = 120) -> Int32? {
            let deadline = Date().addingTimeInterval(limit)
            while isRunning && Date() < deadline { usleep(20_000) }
            if isRunning {
                Issue.record("bench did not exit within \(Int(limit)) s: \(standardError)")
                kill(pid, SIGKILL)
                while isRunning { usleep(10_000) }
            }
            return exitStatus
        }

        /// The measured children (`bench _trial`, `bench _list-scroll`: a hidden subcommand) running now, not
        /// the helpers bench runs for itself (git, reading the checkout's commit).
        var children: [Int32] {
            Self.processes().filter { $0.parent == pid }.map(\.pid).filter(Self.runsAHiddenSubcommand)
        }

        /// Whether `pid` is exec'd with a hidden subcommand (an argument starting with "_").
        static func runsAHiddenSubcommand(_ pid: Int32) -> Bool {
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return data.split(separator: 0).dropFirst().contains { $0.first == UInt8(ascii: "_") }
        }

        /// Waits until a child other than `except` runs; nil if none appears within `limit` seconds.
        func waitForChild(except: Set<Int32> = [], limit: TimeInterval = 120) -> Int32? {
            let deadline = Date().addingTimeInterval(limit)
            while Date() < deadline && isRunning {
                if let child = children.first(where: { !except.contains($0) }) { return child }
                usleep(10_000)
            }
            return nil
        }

        /// Scratch folders (bench-*) left in this run's TMPDIR.
        var scratchLeft: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []).filter {
                $0.hasPrefix("bench-") && !$0.hasPrefix("bench-rescue-")
            }
        }

        static func processes() -> [(pid: Int32, parent: Int32, state: Character)] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
                guard let pid = Int32(name),
                    let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return nil }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 2, let parent = Int32(fields[1]), let state = fields[0].first else { return nil }
                return (pid, parent, state)
            }
        }

        /// Running or sleeping (an exited, reaped process has no /proc entry; a zombie does not count).
        static func isAlive(_ pid: Int32) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let state = stat[stat.index(after: close)...].split(separator: " ").first?.first
            return state != "Z" && state != "X"
        }

        deinit {
            if isRunning {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func rows(_ url: URL) throws -> [[String]] {
        try CSV.parse(String(contentsOf: url, encoding: .utf8)).filter { !($0.count == 1 && $0[0].isEmpty) }
    }

    static func context(_ folder: URL) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(
            with: Data(contentsOf: folder.appendingPathComponent("trials.json"))
        )
        return try #require((json as? [String: Any])?["context"] as? [String: Any])
    }

    /// Waits for `file` to hold at least `lines` lines (bounded).
    static func waitForLines(_ file: URL, _ lines: Int, while bench: RunningBench, limit: TimeInterval = 120) -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline && bench.isRunning {
            if let text = try? String(contentsOf: file, encoding: .utf8),
                text.split(separator: "\n").count >= lines
            {
                return true
            }
            usleep(20_000)
        }
        return false
    }

    // MARK: 1. Runs never rewrite the committed reference

    /// `bench run` without --out writes a new runs/<UTC time>/ that runs/latest names, never ./results
    /// (the committed reference), and every file of the run carries one run id.
    @Test func runWithoutOutWritesItsOwnRunFolderNeverResults() throws {
        let folder = BenchProcess.temporaryFolder()
        let reference = folder.appendingPathComponent("results/trials.csv")
        try FileManager.default.createDirectory(
            at: reference.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try "the committed reference\n".write(to: reference, atomically: true, encoding: .utf8)

        let bench = try RunningBench(["run"] + Self.quick + ["--runs", "2"], folder: folder)
        #expect(bench.wait() == 0, "\(bench.standardError)")
        #expect(
            try String(contentsOf: reference, encoding: .utf8) == "the committed reference\n",
            "results/ was rewritten"
        )

        let latest = folder.appendingPathComponent("runs/latest")
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: latest.path)
        #expect(
            target.range(of: #"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$"#, options: .regularExpression) != nil,
            "runs/<UTC time>: \(target)"
        )
        let trials = try Self.rows(latest.appendingPathComponent("trials.csv"))
        #expect(trials.count == 3, "a header and two rows")
        let idColumn = try #require(trials.first?.firstIndex(of: "run_id"))
        let context = try Self.context(latest)
        #expect(
            trials.dropFirst().allSatisfy { $0[idColumn] == context["runID"] as? String },
            "one run id in trials.csv and trials.json"
        )
        // Every CSV of the run carries its id in a last run_id column.
        for name in ["timeline.csv", "summary.csv"] {
            let rows = try Self.rows(latest.appendingPathComponent(name))
            #expect(rows.first?.last == "run_id" && rows.count > 1, "\(name)")
            #expect(rows.dropFirst().allSatisfy { $0.last == context["runID"] as? String }, "\(name)")
        }
        #expect(
            bench.standardOutput.contains("results in \(folder.appendingPathComponent("runs").path)/\(target)")
                || bench.standardOutput.contains("runs/\(target)"),
            "says where the results are"
        )
    }

    // MARK: 2. An unwritable --out is found before the first trial

    /// An --out that is a file is refused (73), naming it, before the first trial.
    @Test func outThatIsAFileIsRefusedBeforeTheFirstTrial() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("not-a-folder")
        try "x".write(to: file, atomically: true, encoding: .utf8)
        let output = InProcessBench.run(["run"] + Self.quick + ["--runs", "1", "--out", file.path])
        #expect(output.status == 73, "\(output.standardError)")
        #expect(output.standardError.contains(file.path) && output.standardError.contains("is a file, not a folder"))
        #expect(!output.standardError.contains("[1/1]"), "no trial ran")
    }

    /// An --out on a read-only file system (chmod does not stop root) is refused (73) by run, sweep and
    /// scenario before the first trial, the message naming the folder and the reason.
    @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs"))
    func outOnAReadOnlyFileSystemIsRefusedBeforeTheFirstTrial() throws {
        let mount = try TinyMount(options: "size=1m,ro")
        defer { mount.unmount() }
        for out in [mount.path.path, mount.path.appendingPathComponent("sub").path] {
            let output = InProcessBench.run(["run"] + Self.quick + ["--runs", "1", "--out", out])
            #expect(output.status == 73, "\(out): \(output.standardError)")
            #expect(
                output.standardError.contains(out) && output.standardError.contains("Read-only file system"),
                "\(output.standardError)"
            )
            #expect(!output.standardError.contains("[1/1]"), "no trial ran")
        }
        for command in [
            ["sweep", "--strategy", "data", "--sizes", "1", "--runs", "1"],
            ["scenario", "list-scroll", "--sizes", "64x48", "--rows", "2", "--visible", "1"],
        ] {
            let output = InProcessBench.run(command + ["--out", mount.path.path])
            #expect(output.status == 73, "\(command[0]): \(output.standardError)")
        }
    }

    // MARK: 2-3. A disk that fills during the run: rows kept elsewhere, no temp file left

    /// A disk that fills during the run: every row goes to a rescue folder that the message names (74),
    /// and no temporary file is left in the full folder.
    @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs"))
    func diskFullDuringTheRunKeepsTheRowsInARescueFolder() throws {
        let mount = try TinyMount(options: "size=64k")
        defer { mount.unmount() }
        let out = mount.path.appendingPathComponent("run")
        let bench = try RunningBench(["run"] + Self.quick + ["--runs", "2", "--bandwidth", "20M", "--out", out.path])
        #expect(bench.waitForChild() != nil, "a trial starts")
        mount.fill()
        let status = bench.wait()
        #expect(status == 74, "\(bench.standardError)")
        #expect(bench.standardError.contains("No space left on device"), "\(bench.standardError)")
        let rescue = try #require(
            (try FileManager.default.contentsOfDirectory(atPath: bench.scratch.path)).first {
                $0.hasPrefix("bench-rescue-")
            },
            "a rescue folder in TMPDIR"
        )
        #expect(bench.standardError.contains(rescue), "the message says where the rows are")
        let rescued = bench.scratch.appendingPathComponent(rescue)
        #expect(try Self.rows(rescued.appendingPathComponent("trials.csv")).count == 3, "both rows kept")
        #expect(FileManager.default.fileExists(atPath: rescued.appendingPathComponent("trials.json").path))
        let left = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty, "failed atomic writes left \(left)")
        #expect(bench.scratchLeft.isEmpty)
    }

    // MARK: 4. Two runs on one folder

    /// A second run, sweep or scroll on a folder in use is refused (75), naming the folder and the other
    /// run's pid; the first run goes on and keeps its rows.
    @Test func secondRunOnTheSameFolderIsRefusedAndTheFirstKeepsItsRows() throws {
        let bench = try RunningBench(["run"] + Self.quick + ["--runs", "1", "--bandwidth", "2M", "--out", "shared"])
        defer { _ = bench.wait() }
        let out = bench.folder.appendingPathComponent("shared")
        #expect(bench.waitForChild() != nil, "the first run's trial starts")
        for command in [
            ["run"] + Self.quick + ["--runs", "1"],
            ["sweep", "--strategy", "data", "--sizes", "1", "--runs", "1"],
            ["scenario", "list-scroll", "--sizes", "64x48", "--rows", "2", "--visible", "1"],
        ] {
            let second = InProcessBench.run(command + ["--out", out.path])
            #expect(second.status == 75, "\(command[0]): \(second.standardError)")
            #expect(
                second.standardError.contains(out.path) && second.standardError.contains("pid \(bench.pid)"),
                "names the folder and the other run: \(second.standardError)"
            )
        }
        #expect(bench.wait() == 0, "\(bench.standardError)")
        #expect(try Self.rows(out.appendingPathComponent("trials.csv")).count == 2, "the first run's row")
    }

    // MARK: 5. Signals

    /// SIGTERM stops a run with 143: the running child stopped, the scratch removed, and every file
    /// written as one consistent set that says it was interrupted and after how many runs.
    @Test func sigtermWritesEveryFileStopsTheChildAndRemovesScratch() throws {
        let bench = try RunningBench(["run"] + Self.quick + ["--runs", "3", "--bandwidth", "4M", "--out", "out"])
        let out = bench.folder.appendingPathComponent("out")
        #expect(
            Self.waitForLines(out.appendingPathComponent("trials.csv"), 2, while: bench),
            "the first run is recorded"
        )
        let first = Set(try Self.rows(out.appendingPathComponent("trials.csv")).dropFirst().compactMap { Int32($0[4]) })
        let child = try #require(bench.waitForChild(except: first), "the second trial's child")
        bench.signal(SIGTERM)
        #expect(bench.wait() == 143, "\(bench.standardError)")
        #expect(bench.standardError.contains("interrupted by SIGTERM after 1 of 3 runs"), "\(bench.standardError)")
        #expect(!RunningBench.isAlive(child), "the running child is stopped")
        #expect(bench.scratchLeft.isEmpty, "scratch left: \(bench.scratchLeft)")
        for name in ["trials.csv", "timeline.csv", "summary.csv", "trials.json"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), "\(name)")
        }
        let context = try Self.context(out)
        #expect(context["interruptedBy"] as? String == "SIGTERM")
        #expect(context["completedRuns"] as? Int == 1 && context["plannedRuns"] as? Int == 3)
        // The files are one consistent set: bench report accepts them.
        let report = InProcessBench.run([
            "report", "--results", out.path, "--data-out", bench.folder.appendingPathComponent("data").path,
            "--report-file", bench.folder.appendingPathComponent("REPORT.md").path,
        ])
        #expect(report.status == 0, "\(report.standardError)")
    }

    /// A second SIGINT still kills the child (in its own process group), removes the scratch and leaves the
    /// files written.
    @Test func secondSigintStillKillsTheChildAndLeavesTheFilesWritten() throws {
        let bench = try RunningBench(["run"] + Self.quick + ["--runs", "2", "--bandwidth", "1M", "--out", "out"])
        let out = bench.folder.appendingPathComponent("out")
        let child = try #require(bench.waitForChild(), "a trial's child")
        bench.signal(SIGINT)
        // The second signal once the first was seen (two at once may arrive as one).
        let deadline = Date().addingTimeInterval(5)
        while !bench.standardError.contains("SIGINT received") && Date() < deadline { usleep(10_000) }
        bench.signal(SIGINT)
        #expect(bench.wait() == 130, "\(bench.standardError)")
        #expect(!RunningBench.isAlive(child), "the child is killed, not orphaned")
        #expect(bench.scratchLeft.isEmpty, "scratch left: \(bench.scratchLeft)")
        #expect(bench.standardError.contains("interrupted by SIGINT after 0 of 2 runs"))
        #expect(try Self.context(out)["interruptedBy"] as? String == "SIGINT")
    }

    /// SIGINT during a hung trial kills it at once, without waiting out --timeout or the server's 60 s
    /// delay. The bound of the wait (30 s) is below that delay: only a prompt kill passes.
    @Test func sigintDuringAHungTrialKillsItAtOnce() throws {
        let server = LoopbackServer()
        server.addResource(path: "/hang.jpg", body: Data(repeating: 0, count: 1000))
        try server.start()
        defer { server.shutdown() }
        let url = server.url(for: "/hang.jpg").absoluteString + "?fault=slowFirstByte&delayMs=60000"
        let bench = try RunningBench([
            "run", "--url", url, "--strategy", "data", "--render", "none", "--allocator", "system",
            "--runs", "1", "--timeout", "600", "--out", "out",
        ])
        let child = try #require(bench.waitForChild(), "the trial's child")
        // Warm-up done and the fetch waiting for its first byte: the server has seen the request.
        let deadline = Date().addingTimeInterval(60)
        while server.requestCount(path: "/hang.jpg") == 0 && Date() < deadline { usleep(10_000) }
        bench.signal(SIGINT)
        #expect(bench.wait(limit: 30) == 130, "\(bench.standardError)")
        #expect(!RunningBench.isAlive(child))
        #expect(bench.standardError.contains("interrupted by SIGINT"))
        #expect(bench.scratchLeft.isEmpty)
    }

    /// SIGINT on `bench scenario` kills its child too, and the scroll cut short is no row.
    @Test func sigintOnAScenarioKillsItsChild() throws {
        let bench = try RunningBench([
            "scenario", "list-scroll", "--sizes", "64x48", "--rows", "100", "--visible", "1",
            "--speed", "1", "--out", "out",
        ])
        let child = try #require(bench.waitForChild(), "the scenario's child")
        bench.signal(SIGINT)
        #expect(bench.wait(limit: 60) == 130, "\(bench.standardError)")
        #expect(!RunningBench.isAlive(child), "the scenario child is killed")
        #expect(bench.standardError.contains("interrupted by SIGINT after 0 of 1 scrolls"), "\(bench.standardError)")
        #expect(bench.scratchLeft.isEmpty, "scratch left: \(bench.scratchLeft)")
        // A scroll is measured whole: the one cut short is no row, and the run does not claim a file it never wrote.
        let csv = bench.folder.appendingPathComponent("out/list-scroll.csv")
        #expect(!FileManager.default.fileExists(atPath: csv.path))
        #expect(!bench.standardOutput.contains("wrote"), "\(bench.standardOutput)")
        #expect(bench.standardOutput.contains("no scroll finished: nothing was recorded"), "\(bench.standardOutput)")
    }

    // MARK: 6. bench report checks a run's files against each other

    /// `bench report` refuses (65) a trials.csv cut at a row boundary, or from another run, naming the mismatch
    /// with trials.json.
    @Test func reportRefusesATrialsCSVCutAtARowBoundaryOrFromAnotherRun() throws {
        let bench = try RunningBench(["run"] + Self.quick + ["--runs", "2", "--out", "out"])
        #expect(bench.wait() == 0, "\(bench.standardError)")
        let out = bench.folder.appendingPathComponent("out")
        let trials = out.appendingPathComponent("trials.csv")
        let original = try String(contentsOf: trials, encoding: .utf8)
        let report = [
            "report", "--results", out.path, "--data-out", bench.folder.appendingPathComponent("data").path,
            "--report-file", bench.folder.appendingPathComponent("REPORT.md").path,
        ]
        #expect(InProcessBench.run(report).status == 0, "the whole run is accepted")

        let lines = original.split(separator: "\n")
        try (lines.prefix(2).joined(separator: "\n") + "\n").write(to: trials, atomically: true, encoding: .utf8)
        let cut = InProcessBench.run(report)
        #expect(cut.status == 65, "\(cut.standardError)")
        #expect(cut.standardError.contains("trials.csv has 1 rows but trials.json"), "\(cut.standardError)")

        // The same rows, but from another run (its id): refused too.
        let header = try #require(lines.first).split(separator: ",")
        #expect(header.last == "run_id")
        let foreign = lines.enumerated().map { offset, line in
            offset == 0
                ? String(line)
                : line.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",")
                    + ",another-run"
        }
        try (foreign.joined(separator: "\n") + "\n").write(to: trials, atomically: true, encoding: .utf8)
        let mixed = InProcessBench.run(report)
        #expect(mixed.status == 65, "\(mixed.standardError)")
        #expect(
            mixed.standardError.contains("trials.csv is from run another-run but trials.json from run"),
            "\(mixed.standardError)"
        )
    }
}

/// A small tmpfs mounted for one test (the tests run as root): read-only, or tiny and then filled.
struct TinyMount {
    let path: URL

    init(options: String) throws {
        path = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", options, "tmpfs", path.path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            throw CocoaError(
                .fileWriteNoPermission,
                userInfo: [NSLocalizedDescriptionKey: "mount -t tmpfs -o \(options) failed"]
            )
        }
    }

    /// Writes a file until the file system is full.
    func fill() {
        let descriptor = open(path.appendingPathComponent("filler").path, O_WRONLY | O_CREAT, 0o644)
        guard descriptor >= 0 else { return }
        let block = [UInt8](repeating: 1, count: 4096)
        while write(descriptor, block, block.count) > 0 {}
        // Whatever a page still holds: fill it byte by byte.
        while write(descriptor, block, 1) > 0 {}
        close(descriptor)
    }

    func unmount() {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [path.path]
        try? umount.run()
        umount.waitUntilExit()
        try? FileManager.default.removeItem(at: path)
    }
}
