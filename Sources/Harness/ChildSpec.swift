import Foundation

/// How a parent hands a measured child its spec (a trial's `TrialSpec`, a scroll's `ScrollSpec`):
/// as JSON in a file of the child's work folder, named on its command line with `--spec-file`.
/// A file, not an argument: a scroll's spec holds one URL per row, and Linux refuses a single
/// argument over 128 KiB ("Argument list too long").
package enum ChildSpec {
    package static let option = "--spec-file"
    /// The spec's file in the child's work folder (not counted among the files a child leaves).
    package static let fileName = "child-spec.json"

    /// Writes `spec` into `folder` and returns the child's arguments after its subcommand.
    package static func write<Spec: Encodable>(_ spec: Spec, in folder: URL) throws -> [String] {
        let file = folder.appendingPathComponent(fileName)
        try JSONEncoder().encode(spec).write(to: file)
        return [option, file.path]
    }

    /// The spec in the file at `path`; the error names the file and what is wrong with it.
    package static func read<Spec: Decodable>(_ type: Spec.Type, from path: String) throws(ChildSpecError) -> Spec {
        let json: Data
        do {
            json = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ChildSpecError(description: "cannot read the spec file \(path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(Spec.self, from: json)
        } catch {
            throw ChildSpecError(description: "the spec file \(path) is not valid JSON for \(Spec.self): \(error)")
        }
    }
}

package struct ChildSpecError: Error, CustomStringConvertible {
    package var description: String
}
