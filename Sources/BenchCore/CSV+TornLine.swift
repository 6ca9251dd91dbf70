import Foundation

extension CSV {
    /// The text up to its last newline, and whether a torn last line (a row cut short by a kill
    /// mid-write) was dropped. An appended file's readers use it, saying so with `tornLineNote`.
    package static func completeLines(_ text: String) -> (text: String, droppedTornLine: Bool) {
        guard !text.isEmpty, !text.hasSuffix("\n") else { return (text, false) }
        guard let newline = text.lastIndex(of: "\n") else { return ("", true) }
        return (String(text[...newline]), true)
    }

    package static func tornLineNote(_ path: String) -> String {
        "bench: note: the last line of \(path) is cut short (the run stopped while writing it); it is ignored\n"
    }
}
