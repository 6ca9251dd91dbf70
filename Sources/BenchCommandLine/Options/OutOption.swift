import ArgumentParser
import Foundation

/// The checks every command's `--out` shares.
enum OutOption {
    /// An empty `--out` (an unset variable in a script: `--out "$DIR"`) would write into the current
    /// folder, perhaps a repository: refused as bad input (exit 64). `instead` says what to give.
    static func validate(_ out: String?, instead: String = "a folder (or no --out for a new runs/<UTC time>/)") throws {
        if let out, out.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--out is empty; give \(instead)")
        }
    }
}
