import ArgumentParser
import BenchCommandLine
import BenchCore
import Harness
import TestSupport

/// `bench ARGUMENTS...` run in the test's own process: parsed as `bench` parses them, run, and ended
/// with the status and words the executable would end with (ArgumentParser's mapping of the error:
/// a validation error 64, a `BenchFailure` its code, `ExitCode` its own), stdout and stderr kept
/// (`CapturedConsole`). A measuring command's children are `children` (by default the recorded ones,
/// `RecordedChildren`): no process starts. For the parent's logic (options, plans, shards, compare,
/// merge, report, summaries); what needs a real child, a signal or the process's environment starts a
/// real `bench`.
enum InProcessBench {
    static func run(_ arguments: [String], children: any TrialLauncher = RecordedChildren()) -> CommandOutput {
        TrialLauncherOverride.$launcher.withValue(children) { end(arguments, running: true) }
    }

    /// `bench ARGUMENTS...` parsed and validated, never run (status 0 when they parse): for the refusals
    /// of a command that measures, which must come before any fixture, server or child.
    static func parse(_ arguments: [String]) -> CommandOutput { end(arguments, running: false) }

    private static func end(_ arguments: [String], running: Bool) -> CommandOutput {
        let console = CapturedConsole()
        let status = CapturedConsole.$current.withValue(console) { () -> Int32 in
            GivenArguments.$override.withValue(["bench"] + arguments) {
                ended(arguments, running: running, console: console)
            }
        }
        return CommandOutput(
            status: status,
            standardOutput: console.standardOutput,
            standardError: console.standardError
        )
    }

    private static func ended(_ arguments: [String], running: Bool, console: CapturedConsole) -> Int32 {
        do {
            var command = try Bench.parseAsRoot(arguments)
            // `--help` parses to ArgumentParser's help command, which says the help when run.
            if running || String(describing: type(of: command)) == "HelpCommand" { try command.run() }
            return 0
        } catch {
            let code = Bench.exitCode(for: error)
            let message = Bench.fullMessage(for: error)
            if !message.isEmpty {
                if code == .success {
                    console.appendOutput(message + "\n")
                } else {
                    console.appendError(message + "\n")
                }
            }
            return code.rawValue
        }
    }
}
