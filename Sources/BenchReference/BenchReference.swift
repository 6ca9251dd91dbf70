import ArgumentParser
import BenchCore

/// This repository's maintainer tool: the committed documents regenerated from results/ (the
/// default), and the studies that judge the harness's own rules. `make reference` runs it (through
/// scripts/plots.sh); the ImageMemoryBench product cannot reach it.
@main
struct BenchReference: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-reference",
        abstract: "This repository's maintainer tool: its documents regenerated from results/, and its studies.",
        subcommands: [
            RegenerateDocuments.self, MeasureCommand.self, GateSimulationCommand.self, OverheadCommand.self,
            StepCommand.self, DecodeTimeCommand.self,
        ],
        defaultSubcommand: RegenerateDocuments.self
    )

    /// The error said on stderr, and the exit status it asks for.
    static func fail(_ code: BenchExitCode, _ message: String) -> ExitCode {
        StandardError.write("bench-reference: \(message)\n")
        return ExitCode(code.rawValue)
    }
}
