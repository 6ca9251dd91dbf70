import Synchronization

/// What a command says on stdout and stderr, kept instead of written: the seam through which a test
/// runs a command in its own process (`CapturedConsole.$current.withValue(console) { ... }`) and reads
/// its words. Task-local, so tests running beside each other keep their own; words said on another
/// thread than the command's own (a signal handler, a progress timer) still go to the process's streams.
package final class CapturedConsole: Sendable {
    @TaskLocal package static var current: CapturedConsole?

    private let texts = Mutex((standardOutput: "", standardError: ""))

    package init() {}

    package var standardOutput: String { texts.withLock { $0.standardOutput } }
    package var standardError: String { texts.withLock { $0.standardError } }

    package func appendOutput(_ text: String) { texts.withLock { $0.standardOutput += text } }
    package func appendError(_ text: String) { texts.withLock { $0.standardError += text } }

    /// `print` as the commands call it: into the capture when there is one, else to stdout.
    package static func print(_ items: [Any], separator: String, terminator: String) {
        let text = items.map { "\($0)" }.joined(separator: separator) + terminator
        if let current { current.appendOutput(text) } else { Swift.print(text, terminator: "") }
    }
}

/// The command line a command reads (which options were given, the command recorded in trials.json):
/// the process's own, or, for a command a test runs in its own process, the one it was given (task-local).
package enum GivenArguments {
    @TaskLocal package static var override: [String]?

    package static var current: [String] { override ?? CommandLine.arguments }
}
