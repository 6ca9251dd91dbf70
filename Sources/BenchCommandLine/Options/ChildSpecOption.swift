import ArgumentParser
import Harness

/// The spec a measured child runs (`ChildSpec`): the same option for `_trial` and `_list-scroll`.
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
}
