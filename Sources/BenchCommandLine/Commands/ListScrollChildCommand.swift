import ArgumentParser
import BenchCore
import Foundation
import Harness
import Measuring
import Scenarios

/// The child side of `bench scenario list-scroll`: `bench _list-scroll --spec-file <path>`, report on fd 3.
struct ListScrollChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ListScrollLauncher.subcommand,
        abstract:
            "Run one measured list scroll (internal: started by `bench scenario list-scroll` in a fresh process).",
        shouldDisplay: false
    )

    @OptionGroup var spec: ChildSpecOption

    func run() throws {
        try Self.measure(specFile: spec.specFile)
    }

    /// Runs the scroll of the spec in `specFile` and reports it on fd 3, then exits: also the
    /// child's entry without the parser (`MeasuredChildEntry`).
    static func measure(specFile: String) throws -> Never {
        try ChildSpecOption.runWorkload(ListScrollLauncher.subcommand, spec: ScrollSpec.self, from: specFile) {
            ScrollSimulation.run($0)
        }
    }
}
