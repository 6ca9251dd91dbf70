import Foundation

/// Diagnostics and progress on stderr, written with write(2) and every error ignored.
///
/// A line that cannot be written (stderr closed with `2>&-`, a pipe whose reader left, a full
/// disk under a redirect) is dropped: it must never end a run. `FileHandle.standardError.write`
/// traps on EPIPE in swift-corelibs-foundation, so nothing here goes through it.
package enum StandardError {
    package static func write(_ text: String) {
        if let console = CapturedConsole.current { return console.appendError(text) }
        write(Data(text.utf8))
    }

    package static func write(_ data: Data) {
        data.withUnsafeBytes { bytes in
            guard let start = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(STDERR_FILENO, start + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // EPIPE, EBADF, ENOSPC, ...: the line is dropped
                }
            }
        }
    }
}
