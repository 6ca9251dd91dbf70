import Foundation
import ReferenceDocuments
import TestSupport
import Testing

/// `bench-reference measure` runs each step under `bench-reference _step`: when the tool dies, even by
/// SIGKILL, the step and everything it started end with it.
@Suite struct StepGuardTests {
    let scratch = FileManager.default.temporaryDirectory
        .appendingPathComponent("step-guard-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)

    /// Whether `pid` is gone or a zombie nobody has reaped yet.
    static func hasEnded(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return errno == ESRCH }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    /// The step's program is a shell that starts a grandchild (as a script starts `bench run`); the
    /// guard's parent is SIGKILLed: within seconds the grandchild is gone too.
    @Test func aKilledParentTakesTheStepsWholeGroupWithIt() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let grandchildFile = scratch.appendingPathComponent("grandchild").path
        let guardFile = scratch.appendingPathComponent("guard").path
        let parent = Process()
        parent.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The stand-in for bench-reference: starts the guard with its own pid as --parent, then waits.
        parent.arguments = [
            "-c", #""$0" _step --parent $$ -- sh -c 'sleep 300 & echo $! > "$0"; wait' "$1" & echo $! > "$2"; wait"#,
            builtExecutable(named: "bench-reference"), grandchildFile, guardFile,
        ]
        parent.standardOutput = FileHandle.nullDevice
        parent.standardError = FileHandle.nullDevice
        try parent.run()
        let guardian = try #require(Self.pid(in: guardFile), "the stand-in never started the guard")
        // Whatever happens, the guard's group (the guard, the shell, the sleep) is gone after the test.
        defer { kill(-guardian, SIGKILL) }
        let grandchild = try #require(Self.pid(in: grandchildFile), "the step never started its grandchild")
        #expect(!Self.hasEnded(grandchild))
        kill(parent.processIdentifier, SIGKILL)
        let killed = Date()
        while !Self.hasEnded(grandchild) && Date().timeIntervalSince(killed) < 5 { usleep(20_000) }
        #expect(Self.hasEnded(grandchild), "the step's grandchild outlived the killed parent")
    }

    /// The pid a shell wrote to `path`, waited for up to 10 s.
    static func pid(in path: String) -> pid_t? {
        let started = Date()
        while Date().timeIntervalSince(started) < 10 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return pid
            }
            usleep(20_000)
        }
        return nil
    }

    /// Through the guard, a step's status is the program's: a tolerated 3 goes on, a 5 stops the study
    /// with 5, and a program killed by SIGKILL reads as 137.
    @Test func aStepsStatusComesThroughTheGuard() throws {
        let tool = builtExecutable(named: "bench-reference")
        var failure: StudyRunner.Failure?
        do {
            try StudyRunner.run(
                [.run(["sh", "-c", "exit 3"], tolerated: [3]), .run(["sh", "-c", "exit 5"])],
                tool: tool
            )
        } catch { failure = error }
        #expect(failure?.status == 5)
        failure = nil
        do { try StudyRunner.run([.run(["sh", "-c", "kill -9 $$"])], tool: tool) } catch { failure = error }
        #expect(failure?.status == 128 + SIGKILL)
    }

    /// A guard killed by SIGKILL (its SIGHUP never comes) does not leave its step running: the tool
    /// kills the guard's group once the guard ends.
    @Test func aKilledGuardLeavesNothingOfItsStep() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let pidFile = scratch.appendingPathComponent("grandchild").path
        let killer = Thread {
            guard let grandchild = Self.pid(in: pidFile) else { return }
            kill(getpgid(grandchild), SIGKILL)  // the guard leads the step's group
        }
        killer.start()
        var failure: StudyRunner.Failure?
        do {
            try StudyRunner.run(
                [.run(["sh", "-c", "sleep 300 & echo $! > '\(pidFile)'; wait"])],
                tool: builtExecutable(named: "bench-reference")
            )
        } catch { failure = error }
        #expect(failure?.status == 128 + SIGKILL)
        let grandchild = try #require(Self.pid(in: pidFile))
        let ended = Date()
        while !Self.hasEnded(grandchild) && Date().timeIntervalSince(ended) < 5 { usleep(20_000) }
        let survived = !Self.hasEnded(grandchild)
        if survived { kill(grandchild, SIGKILL) }
        #expect(!survived, "the step's sleep outlived its killed guard")
    }

    /// SIGINT to `bench-reference measure` is passed on to the running step, which winds down as at a
    /// terminal: bench writes what it measured (trials.json), the tool exits 130, and nothing it
    /// started is left running.
    @Test func aStoppedStudyLetsItsStepWriteWhatItMeasured() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let results = scratch.appendingPathComponent("results")
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: builtExecutable(named: "bench-reference"))
        tool.arguments = ["measure", "holders", "--results", results.path, "--bench", benchExecutable()]
        tool.standardOutput = FileHandle.nullDevice
        tool.standardError = FileHandle.nullDevice
        try tool.run()
        let trials = results.appendingPathComponent("holders/trials.csv").path
        let started = Date()
        func rows() -> Int { (FileManager.default.contents(atPath: trials) ?? Data()).filter { $0 == 10 }.count - 1 }
        while rows() < 1 && Date().timeIntervalSince(started) < 60 && tool.isRunning { usleep(50_000) }
        #expect(rows() >= 1, "no row within 60 s")
        kill(tool.processIdentifier, SIGINT)
        let stopped = Date()
        while tool.isRunning && Date().timeIntervalSince(stopped) < 30 { usleep(50_000) }
        let left = ChildHygieneTests.processes(mentioning: results.path)
        if tool.isRunning { kill(tool.processIdentifier, SIGKILL) }
        for pid in left { kill(pid, SIGKILL) }
        tool.waitUntilExit()
        #expect(tool.terminationStatus == 128 + SIGINT)
        #expect(FileManager.default.fileExists(atPath: results.appendingPathComponent("holders/trials.json").path))
        #expect(left.isEmpty, "left running: \(left)")
    }

    /// A guard whose parent is not the pid it was given (the tool died before the guard asked for its
    /// signal) leaves at once with 70 and starts nothing.
    @Test func aGuardWhoseParentIsGoneStartsNothing() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let marker = scratch.appendingPathComponent("ran").path
        let step = Process()
        step.executableURL = URL(fileURLWithPath: builtExecutable(named: "bench-reference"))
        step.arguments = ["_step", "--parent", "1", "--", "touch", marker]
        step.standardError = FileHandle.nullDevice
        try step.run()
        step.waitUntilExit()
        #expect(step.terminationStatus == 70)
        #expect(!FileManager.default.fileExists(atPath: marker))
    }
}
