import ArgumentParser
import Harness
import ImageServer
import Scenarios

/// A measured child's start without parsing its command line. The parent spawns every child as
/// `bench <_trial|_list-scroll|_server> --spec-file PATH` (`ChildProcessLauncher.arguments(for:)`);
/// parsing that through the whole command tree reflects over every command's options, about a
/// quarter of a trial's start-up, paid by every child. Any other shape of those commands
/// (`_trial --stdout`, a tool's run) goes through the parser as before; errors end the child as
/// the parser would.
package enum MeasuredChildEntry {
    /// The measured children this entry starts.
    package enum Child: Equatable {
        case trial(specFile: String)
        case listScroll(specFile: String)
        case server(specFile: String)
    }

    /// The child `arguments` (the process's, executable first) spawn, or nil for anything else.
    package static func child(for arguments: [String]) -> Child? {
        guard arguments.count == 4, arguments[2] == ChildSpec.option else { return nil }
        switch arguments[1] {
        case ChildProcessLauncher.trialSubcommand: return .trial(specFile: arguments[3])
        case ListScrollLauncher.subcommand: return .listScroll(specFile: arguments[3])
        case ServerSpec.subcommand: return .server(specFile: arguments[3])
        default: return nil
        }
    }

    /// Runs the child and exits when `arguments` are a parent's spawn; returns otherwise.
    package static func runIfSpawned(arguments: [String] = CommandLine.arguments) {
        switch child(for: arguments) {
        case .trial(let specFile): run(TrialCommand.self) { try TrialCommand.measure(specFile: specFile) }
        case .listScroll(let specFile):
            run(ListScrollChildCommand.self) { try ListScrollChildCommand.measure(specFile: specFile) }
        case .server(let specFile): run(ServerChildCommand.self) { try ServerChildCommand.measure(specFile: specFile) }
        case nil: return
        }
    }

    private static func run(_ command: any ParsableCommand.Type, _ body: () throws -> Never) -> Never {
        do {
            try body()
        } catch {
            command.exit(withError: error)
        }
    }
}
