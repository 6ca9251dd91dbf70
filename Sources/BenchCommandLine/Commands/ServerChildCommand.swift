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
        ChildGuard.arm(command: ServerSpec.subcommand)
        let spec = try ChildSpecOption.decode(ServerSpec.self, from: specFile)
        let report = try JSONEncoder().encode(ImageServerChild.run(spec))
        try FileHandle(fileDescriptor: ChildProcess.reportDescriptor, closeOnDealloc: false).write(contentsOf: report)
        // As `_trial`: leave at once; the server's threads and connections end with the process.
        Foundation.exit(BenchExitCode.success.rawValue)
    }
}
