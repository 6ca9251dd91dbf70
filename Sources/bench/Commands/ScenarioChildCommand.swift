import ArgumentParser
import Foundation
import Harness
import Scenarios

/// The child side of `bench scenario list-scroll`: `bench _scenario <spec JSON>`, report on fd 3.
struct ScenarioChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ScenarioLauncher.subcommand,
        abstract: "Run one measured scenario (internal: started by `bench scenario` in a fresh process).",
        shouldDisplay: false)

    @Argument(help: "The scenario's ScrollSpec as JSON.")
    var spec: String

    func run() throws {
        let decoded: ScrollSpec
        do {
            decoded = try JSONDecoder().decode(ScrollSpec.self, from: Data(spec.utf8))
        } catch {
            throw ValidationError("the scenario spec is not valid JSON for ScrollSpec: \(error)")
        }
        let report = try JSONEncoder().encode(ScrollSimulation.run(decoded))
        try FileHandle(fileDescriptor: ChildProcess.reportDescriptor, closeOnDealloc: false).write(contentsOf: report)
        Foundation.exit(BenchExitCode.success.rawValue)
    }
}
