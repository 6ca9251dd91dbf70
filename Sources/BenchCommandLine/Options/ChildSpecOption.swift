import ArgumentParser
import BenchCore
import Foundation
import Harness

/// The spec a measured child runs (`ChildSpec`): the same option for `_trial`, `_list-scroll` and `_server`.
struct ChildSpecOption: ParsableArguments {
    @Option(help: "The file holding the spec as JSON (what the parent writes into the child's work folder).")
    var specFile: String

    /// The spec in the file at `path`; what is wrong with it as a usage error.
    static func decode<Spec: Decodable>(_ type: Spec.Type, from path: String) throws -> Spec {
        do {
            return try ChildSpec.read(type, from: path)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// A workload child's whole life: arms the child guard for `command`, reads its spec from
    /// `path`, runs it, writes the report on fd 3 and leaves at once, as `_trial` does (tearing down
    /// URLSession's or the server's threads buys nothing). Also the entry without the parser.
    static func runWorkload<Spec: Decodable, Report: Encodable>(
        _ command: String,
        spec type: Spec.Type,
        from path: String,
        _ work: (Spec) throws -> Report
    ) throws -> Never {
        ChildGuard.arm(command: command)
        let report = try JSONEncoder().encode(try work(try decode(type, from: path)))
        try FileHandle(fileDescriptor: ChildProcess.reportDescriptor, closeOnDealloc: false).write(contentsOf: report)
        Foundation.exit(BenchExitCode.success.rawValue)
    }
}
