import BenchCore
import Foundation

/// `$TMPDIR` (/tmp when unset), where a run keeps its scratch folder and the fixture cache: checked
/// once before the first trial, so that a missing, read-only or non-folder TMPDIR is one clear
/// refusal rather than every run a `harness_error`, and bench never creates a TMPDIR that is not there.
package enum TemporaryFolder {
    /// Why `$TMPDIR` cannot hold a run's scratch, or nil when it can. Creates nothing.
    package static func problem() -> String? {
        let path = FileManager.default.temporaryDirectory.path  // the folder that scratch goes to
        let named =
            ProcessInfo.processInfo.environment["TMPDIR"].map { "TMPDIR=\(EscapedText.escaped($0))" }
            ?? "\(path) (TMPDIR is not set)"
        let remedy = "a run keeps its scratch folder there; point TMPDIR at a folder you can write"
        var info = stat()
        guard stat(path, &info) == 0 else { return "\(named): \(String(cString: strerror(errno))); \(remedy)" }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return "\(named) is not a folder; \(remedy)" }
        guard access(path, W_OK | X_OK) == 0 else {
            return "\(named) cannot be written (\(String(cString: strerror(errno)))); \(remedy)"
        }
        return nil
    }
}
