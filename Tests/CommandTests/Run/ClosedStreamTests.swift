import BenchCore
import Foundation
import TestSupport
import Testing

/// A stdout or stderr that cannot be written (a pipe whose reader left, a closed descriptor)
/// must not end a run: the lines are dropped, every file is written, no scratch is left.
/// The real `bench` binary, spawned as a shell would with `2>&-` or `2>&1 >/dev/null | head -c 20`.
@Suite(.serialized) struct ClosedStreamTests {
    typealias Finished = ShellStartedBench.Ended

    /// Runs `bench arguments...` as a shell starts it (`ShellStartedBench`) and waits, at most
    /// `limit` seconds.
    static func run(
        _ arguments: [String],
        in folder: URL,
        stdout: ShellStartedBench.Destination,
        stderr: ShellStartedBench.Destination,
        environment extra: [String: String] = [:],
        limit: TimeInterval = 300
    ) throws -> Finished {
        let pid = try ShellStartedBench.spawn(arguments, in: folder, stdout: stdout, stderr: stderr, environment: extra)
        let deadline = Date().addingTimeInterval(limit)
        while true {
            if let ended = ShellStartedBench.reap(pid) { return ended }
            if Date() > deadline {
                Issue.record("bench did not exit within \(Int(limit)) s")
                kill(pid, SIGKILL)
                return ShellStartedBench.reap(pid, waiting: true) ?? Finished(status: nil, signal: SIGKILL)
            }
            usleep(20_000)
        }
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
