import Foundation

/// One step of re-measuring a study of the committed reference: a program to run, or a file to move.
/// `bench-reference measure` runs a study's steps in order and stops at the first that fails.
package enum StudyStep: Equatable, Sendable {
    /// Runs `arguments[0]` (found on PATH when it has no slash) with the rest as its arguments, with
    /// `environment` added to this process's. `tolerated` are the exit statuses other than 0 that are
    /// data, not failure (a scenario row killed by its memory limit exits 3, a comparison that finds a
    /// regression 2). `output`: a file its stdout replaces once the program ends with an accepted
    /// status (written beside it until then, so that a failed step leaves it as it was).
    case run(
        _ arguments: [String],
        environment: [String: String] = [:],
        tolerated: Set<Int32> = [],
        output: String? = nil
    )
    /// Copies a file over another (the destination replaced).
    case copy(from: String, to: String)
    /// Removes a file or folder when it is there.
    case remove(String)
    /// Creates a folder and its parents when missing.
    case makeFolder(String)
    /// Records in `folder`'s provenance.json that `study` was measured now by `binary`, built from the
    /// checkout `checkoutOf` was built in (ReferenceProvenance).
    case recordProvenance(study: String, binary: String, checkoutOf: String, folder: String)

    /// The step as a shell line: what `--dry-run` prints, and what a failure names.
    package var shellLine: String {
        switch self {
        case .run(let arguments, let environment, let tolerated, let output):
            let settings = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quoted($0.value))" }
            var line = (settings + arguments.map(Self.quoted)).joined(separator: " ")
            if let output { line += " > \(Self.quoted(output))" }
            if !tolerated.isEmpty {
                line += "  # exit " + tolerated.sorted().map(String.init).joined(separator: ", ") + " is data too"
            }
            return line
        case .copy(let from, let to): return "cp \(Self.quoted(from)) \(Self.quoted(to))"
        case .remove(let path): return "rm -rf \(Self.quoted(path))"
        case .makeFolder(let path): return "mkdir -p \(Self.quoted(path))"
        case .recordProvenance(let study, let binary, _, let folder):
            return "# record in \(folder)/\(ReferenceProvenance.fileName): \(study) measured by \(binary)"
        }
    }

    /// A word as the shell reads it: bare when it holds only safe characters, else single-quoted.
    static func quoted(_ word: String) -> String {
        let safe = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%"
        )
        if !word.isEmpty, word.unicodeScalars.allSatisfy(safe.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
