import ArgumentParser
import Foundation
import BenchCore
import Harness
import Scenarios

/// The child side of `bench scenario list-scroll`: `bench _scenario --spec-file <path>`
/// (or the spec JSON as an argument, for small specs), report on fd 3.
struct ScenarioChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ScenarioLauncher.subcommand,
        abstract: "Run one measured scenario (internal: started by `bench scenario` in a fresh process).",
        shouldDisplay: false)

    @Option(help: "A file holding the scenario's ScrollSpec as JSON (what `bench scenario` passes).")
    var specFile: String?

    @Argument(help: "The scenario's ScrollSpec as JSON (small specs only: one argument is limited to 128 KiB).")
    var spec: String?

    func validate() throws {
        guard (specFile == nil) != (spec == nil) else {
            throw ValidationError("give the ScrollSpec either as --spec-file <path> or as one JSON argument")
        }
    }

    func run() throws {
        let json: Data
        if let specFile {
            do {
                json = try Data(contentsOf: URL(fileURLWithPath: specFile))
            } catch {
                throw ValidationError("cannot read the scenario spec file \(specFile): \(error.localizedDescription)")
            }
        } else {
            json = Data((spec ?? "").utf8)
        }
        let decoded: ScrollSpec
        do {
            decoded = try JSONDecoder().decode(ScrollSpec.self, from: json)
        } catch {
            throw ValidationError("the scenario spec is not valid JSON for ScrollSpec: \(error)")
        }
        let report = try JSONEncoder().encode(ScrollSimulation.run(decoded))
        try FileHandle(fileDescriptor: ChildProcess.reportDescriptor, closeOnDealloc: false).write(contentsOf: report)
        // The measured child leaves at once, as `_trial` does: tearing down URLSession's threads buys nothing.
        Foundation.exit(BenchExitCode.success.rawValue)
    }
}
