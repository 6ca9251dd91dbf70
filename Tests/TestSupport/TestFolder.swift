import Foundation

/// A test's own scratch folder: a fresh name in the suite's TMPDIR, not yet made; the test removes it.
public enum TestFolder {
    public static func temporary() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("bench-test-\(UUID().uuidString.prefix(8))")
    }
}

/// What a command ended with: its exit status and what it said on stdout and stderr (a real `bench`'s,
/// or a command's run in the test's own process).
public struct CommandOutput: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    public init(status: Int32, standardOutput: String, standardError: String) {
        (self.status, self.standardOutput, self.standardError) = (status, standardOutput, standardError)
    }
}
