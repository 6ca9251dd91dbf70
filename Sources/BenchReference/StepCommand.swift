import ArgumentParser
import ReferenceDocuments

/// `bench-reference _step --parent PID -- PROGRAM ARGS...`: what `measure` starts each step's program
/// through (`StepGuard`): the step and everything it started end when bench-reference does.
struct StepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: StepGuard.subcommand,
        abstract: "Run one step of a study, ending it and its children when bench-reference ends (internal).",
        shouldDisplay: false
    )

    @Option(help: "The pid of the bench-reference that started this step.")
    var parent: Int32

    @Argument(parsing: .captureForPassthrough, help: "The program and its arguments.")
    var command: [String]

    func run() throws {
        let words = command.first == "--" ? Array(command.dropFirst()) : command
        guard !words.isEmpty else { throw ValidationError("no program to run after --") }
        StepGuard.run(parent: parent, arguments: words)
    }
}
