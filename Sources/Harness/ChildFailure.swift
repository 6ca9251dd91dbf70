import Foundation

/// What a child that left no report died of, in words for its row.
///
/// A crashed Swift child prints its last words ("...: Fatal error: 'try!' expression
/// unexpectedly raised an error: ... No space left on device") and then the backtracer's
/// report: a thread dump and a long image list. The tail of stderr is that image list,
/// which says nothing; the fatal error line says everything. So the row names the signal
/// (or exit status) and the child's own message when it left one, and only otherwise
/// what it printed last before the backtrace.
package enum ChildFailure {
    /// Lines the Swift runtime (and C's assert) print for a trap, most telling first.
    static let lastWordsMarkers = [
        "Fatal error:", "Precondition failed:", "Assertion failed:",
        "Unexpectedly found nil", "Illegal instruction", "terminate called",
    ]

    /// Where the backtracer's report starts ("💣 Program crashed: ..." or "*** Program crashed: ...").
    static let backtraceMarkers = ["Program crashed:", "*** Signal ", "Backtrace took", "Thread 0 crashed"]

    /// The longest message kept from the child, so one row stays one readable line.
    static let maximumMessageLength = 600

    /// The child's own explanation: the runtime's fatal error line, or the last lines it
    /// printed before any backtrace; nil when it printed nothing useful.
    package static func lastWords(standardError: Data) -> String? {
        let lines = String(decoding: standardError, as: UTF8.self)
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        let beforeBacktrace = lines.prefix { line in !backtraceMarkers.contains { line.contains($0) } }
        for marker in lastWordsMarkers {
            if let line = lines.first(where: { $0.contains(marker) }) {
                return shortened(String(line[line.range(of: marker)!.lowerBound...]))
            }
        }
        let tail = beforeBacktrace.filter { !$0.isEmpty }.suffix(3)
        return tail.isEmpty ? nil : shortened(tail.joined(separator: " | "))
    }

    /// "killed by signal 4 (Illegal instruction): Fatal error: ..." and the like.
    package static func describe(exitStatus: Int32?, signal: Int32?, standardError: Data) -> String {
        var text: String
        if let signal {
            text = "child killed by signal \(signal) (\(String(cString: strsignal(signal))))"
            if signal == SIGKILL { text += ", possibly the kernel's out-of-memory killer or a memory limit" }
        } else {
            text = "child exited with status \(exitStatus ?? -1) without a report"
        }
        if let words = lastWords(standardError: standardError) { text += ": " + words }
        return text
    }

    private static func shortened(_ text: String) -> String {
        text.count <= maximumMessageLength ? text : String(text.prefix(maximumMessageLength)) + "..."
    }
}
