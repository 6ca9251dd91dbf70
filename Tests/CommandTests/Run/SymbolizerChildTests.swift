import BenchCore
import Foundation
import TestSupport
import Testing

/// The symbolizer the parent runs after each trial (`BENCH_LLVM_SYMBOLIZER` may name any program):
/// its time limit holds for a program that starts children of its own, one that cannot be used is
/// said once, the names it gives never reach a file or the terminal raw, and its files are kept
/// in the run's scratch folder, which the next run removes should this one be killed.
@Suite(.serialized) struct SymbolizerChildTests {
    typealias RunningBench = RowsKeptTests.RunningBench
    static let quick = HolderNamingFaultsTests.quick

    /// A `sleep` whose argument no other process has, to find it (and only it) in /proc.
    static func uniqueSleep() -> String { "sleep 97.\(UInt32.random(in: 100_000...999_999))" }

    /// A wrapper script (not `exec`: the shell stays and its `sleep` is its child) hangs: at the
    /// limit (`BENCH_SYMBOLIZER_TIMEOUT`, here 2 s) its whole process group is killed, so the run
    /// ends soon after the limit and the sleep is gone.
    @Test func aSymbolizersOwnChildIsKilledAtTheLimit() throws {
        let sleep = Self.uniqueSleep()
        let started = Date()
        try HolderNamingFaultsTests.quickRun(
            symbolizer: sleep,
            environment: ["BENCH_SYMBOLIZER_TIMEOUT": "2"],
            timeout: 60
        ) { output, _ in
            let took = Date().timeIntervalSince(started)
            let left = ChildHygieneTests.processes(mentioning: sleep)
            ChildHygieneTests.killAll(left)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardError.contains("took more than 2 s"), "\(output.standardError)")
            #expect(took >= 2 && took < 2 + 20, "the run took \(took) s with a symbolizer limit of 2 s")
            #expect(left.isEmpty, "the symbolizer's child outlived it")
        }
    }

    /// A symbolizer named by `BENCH_LLVM_SYMBOLIZER` that is missing, not executable, empty (the
    /// variable or the file) or silent (it answers nothing): one warning line naming the variable
    /// and the problem, over two runs; the run is measured and its holders are named without it.
    @Test(arguments: ["missing", "not executable", "empty variable", "empty file", "silent"])
    func aSymbolizerThatCannotBeUsedIsSaidOnce(problem: String) throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let program = folder.appendingPathComponent("symbolizer")
        switch problem {
        case "not executable": try "#!/bin/sh\ncat\n".write(to: program, atomically: true, encoding: .utf8)
        case "empty file":
            #expect(FileManager.default.createFile(atPath: program.path, contents: Data()))
            chmod(program.path, 0o755)
        case "silent":
            try "#!/bin/sh\ncat >/dev/null\n".write(to: program, atomically: true, encoding: .utf8)
            chmod(program.path, 0o755)
        default: break
        }
        let variable = problem == "empty variable" ? "" : program.path
        let out = folder.appendingPathComponent("out")
        let output = try BenchProcess.run(
            Self.quick + ["--runs", "2", "--out", out.path],
            extraEnvironment: ["BENCH_LLVM_SYMBOLIZER": variable],
            timeout: 120
        )
        #expect(output.status == 0, "\(output.standardError)")
        let warnings = output.standardError.split(separator: "\n").filter { $0.contains("BENCH_LLVM_SYMBOLIZER") }
        #expect(warnings.count == 1, "\(output.standardError)")
        #expect(
            warnings.allSatisfy { $0.hasPrefix("warning: ") && $0.contains("holders are named without") },
            "\(warnings)"
        )
        let csv = try String(contentsOf: out.appendingPathComponent("holders.csv"), encoding: .utf8)
        let holders = try HoldersCSV.parse(csv)
        #expect(holders.count == 2 && holders.allSatisfy { !$0.holders.isEmpty }, "\(holders.map(\.holders.count))")
    }

    /// A symbolizer whose function names hold a newline and a NUL: escaped as file names are
    /// (`\n`, `\x00`) in holders.csv, holders.folded and the terminal; no line is broken.
    @Test func aNewlineOrNulInASymbolNameIsEscaped() throws {
        let symbolizer =
            #"while read -r line; do printf '%s\n' '{"Symbol":[{"FunctionName":"evil\nname\u0000end"}]}'; done"#
        try HolderNamingFaultsTests.quickRun(symbolizer: symbolizer, timeout: 120) { output, folder in
            #expect(output.status == 0, "\(output.standardError)")
            let escaped = #"evil\nname\x00end"#
            let folded = try String(contentsOf: folder.appendingPathComponent("holders.folded"), encoding: .utf8)
            let lines = folded.split(separator: "\n")
            #expect(
                !lines.isEmpty && lines.allSatisfy { $0.split(separator: " ").last.flatMap { Int($0) } != nil },
                "every line of holders.folded ends with its bytes: \(lines)"
            )
            #expect(folded.contains(escaped) && !folded.contains("\0"), "\(folded)")
            let csv = try String(contentsOf: folder.appendingPathComponent("holders.csv"), encoding: .utf8)
            #expect(csv.contains(escaped) && !csv.contains("\0") && !csv.contains("evil\n"), "\(csv)")
            let runs = try HoldersCSV.parse(csv)
            let named = runs.flatMap(\.holders).map(\.allocatedBy)
            #expect(named.contains(escaped), "\(named)")
            #expect(
                output.standardOutput.contains(escaped) && !output.standardOutput.contains("\0")
                    && !output.standardOutput.contains("evil\n"),
                "\(output.standardOutput)"
            )
        }
    }

    /// A run killed (SIGKILL) while its symbolizer runs leaves no `bench-symbolize-*` file loose in
    /// $TMPDIR: they are in the run's scratch folder, which the next run removes.
    @Test func aKilledRunsSymbolizerFilesGoWithItsScratch() throws {
        let sleep = Self.uniqueSleep()
        let symbolizer = try HolderNamingFaultsTests.script("exec " + sleep)
        defer { try? FileManager.default.removeItem(at: symbolizer) }
        let bench = try RunningBench(
            ["run"] + Self.quick + ["--out", "out"],
            extraEnvironment: ["BENCH_LLVM_SYMBOLIZER": symbolizer.path]
        )
        let deadline = Date().addingTimeInterval(60)
        var symbolizing: [Int32] = []
        while symbolizing.isEmpty && Date() < deadline && bench.isRunning {
            usleep(10_000)
            symbolizing = ChildHygieneTests.processes(mentioning: sleep)
        }
        bench.signal(SIGKILL)
        _ = bench.wait()
        ChildHygieneTests.killAll(symbolizing)
        #expect(!symbolizing.isEmpty, "the symbolizer ran: \(bench.standardError)")
        let loose = try FileManager.default.contentsOfDirectory(atPath: bench.scratch.path)
            .filter { $0.hasPrefix("bench-symbolize-") }
        #expect(loose.isEmpty, "left in TMPDIR: \(loose)")

        let next = try BenchProcess.run(
            Self.quick + ["--out", bench.folder.appendingPathComponent("next").path],
            extraEnvironment: ["TMPDIR": bench.scratch.path]
        )
        #expect(next.status == 0, "\(next.standardError)")
        let files = (FileManager.default.enumerator(atPath: bench.scratch.path)?.allObjects ?? [])
            .compactMap { $0 as? String }
        #expect(!files.contains { $0.contains("symbolize") }, "left after the next run: \(files)")
    }
}
