import BenchCore
import Foundation

/// A CSV that grows by whole rows: the header once when the file starts, then each finished row
/// appended with one write(2), so the cost of a row does not grow with the rows before it and a
/// run killed at any moment (SIGKILL included) leaves every complete row readable. A row cut
/// short by such a kill is the file's last, unterminated line: `reopen` drops it before appending.
package final class AppendedRows {
    package let url: URL
    private let descriptor: Int32

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Starts the file anew with `header` (one CSV line, without its newline).
    package convenience init(url: URL, header: String) throws {
        try self.init(url: url, header: header, keepRows: false)
    }

    /// Opens the file of an interrupted run to go on appending: a torn last line is cut off and a
    /// file without its header (empty, or missing) gets it.
    package static func reopen(url: URL, header: String) throws -> AppendedRows {
        try AppendedRows(url: url, header: header, keepRows: true)
    }

    private init(url: URL, header: String, keepRows: Bool) throws {
        self.url = url
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // A link in the run's folder is replaced, never appended through (what it showed is kept on resume).
        do { try RunFolderLink.replace(at: url, keepingContent: keepRows) } catch {
            throw Failure(description: String(describing: error))
        }
        let flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (keepRows ? 0 : O_TRUNC)
        descriptor = open(url.path, flags, 0o644)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open \(url.path): \(String(cString: strerror(errno)))")
        }
        var size = keepRows ? Self.completeLength(url) : 0
        if keepRows, ftruncate(descriptor, off_t(size)) != 0 {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "cannot cut the torn last line of \(url.path): \(reason)")
        }
        if size == 0 {
            try append(header + "\n")
            size = header.utf8.count + 1
        }
    }

    deinit { close(descriptor) }

    /// Appends `text` (whole lines, each ending in "\n") in one write(2) (more only if the kernel
    /// takes part of it): the rows reach the file before this returns.
    package func append(_ text: String) throws {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot append to \(url.path): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        bytes.removeAll()
    }

    /// The length of the file up to and including its last newline (0 when missing or empty).
    static func completeLength(_ url: URL) -> Int {
        guard let data = FileManager.default.contents(atPath: url.path) else { return 0 }
        guard let last = data.lastIndex(of: UInt8(ascii: "\n")) else { return 0 }
        return last - data.startIndex + 1
    }
}
