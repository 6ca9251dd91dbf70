import ArgumentParser
import BenchCore
import Foundation
import Harness
import ImageServer
import Measuring

/// The child side of `bench scenario image-server`: `bench _server --spec-file <path>`; it serves
/// until SIGINT, then reports on fd 3.
struct ServerChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ServerSpec.subcommand,
        abstract: "Run the measured image server (internal: started by `bench scenario image-server`).",
        shouldDisplay: false
    )

    @OptionGroup var spec: ChildSpecOption

    func run() throws {
        try Self.measure(specFile: spec.specFile)
    }

    /// Serves the spec in `specFile` until SIGINT and reports on fd 3, then exits: also the
    /// child's entry without the parser (`MeasuredChildEntry`).
    static func measure(specFile: String) throws -> Never {
        try ChildSpecOption.runWorkload(ServerSpec.subcommand, spec: ServerSpec.self, from: specFile) {
            ImageServerChild.run($0)
        }
    }
}
