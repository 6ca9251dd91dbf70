import Foundation

/// Writes a whole file at a path the user gave, without harming what is there:
/// - a regular file (or a missing one) is replaced atomically: a temporary file in the same
///   folder, then rename(2), so readers see the old content or the new, never half of it;
/// - a symlink is followed (a chain of them too) and its target replaced that way; the link stays;
/// - a character device (/dev/null) is written through, never replaced;
/// - a FIFO is written through when a reader has it open, else refused (a write would wait forever);
/// - a folder, block device or socket is refused.
/// rename(2) replaces whatever is at its target, so it is used only where a regular file or
/// nothing is. On every failure (a full disk, a read-only folder) the temporary file is removed.
package enum SafeFile {
    package struct Failure: Error, CustomStringConvertible {
        package enum Kind: Sendable {
            /// The path names something that is not a file bench may write (a folder, a block device,
            /// a socket, a FIFO nobody reads).
            case notAFile
            /// The write itself failed (no space, no permission, read-only file system).
            case io
        }
        package var kind: Kind
        package var path: String
        package var reason: String
        package var description: String { "cannot write \(path): \(reason)" }
    }

    /// What is at a path, after following symlinks.
    package enum Kind: Equatable, Sendable {
        case missing, regularFile, folder, characterDevice, fifo, blockDevice, socket
    }

    package static func write(_ data: Data, to path: String) throws {
        try write(to: path) { descriptor in
            data.withUnsafeBytes { bytes in
                bytes.isEmpty ? nil : writeAll(descriptor, bytes.baseAddress!, bytes.count)
            }
        }
    }

    /// Copies the regular file at `source` to `path`, a megabyte at a time.
    package static func copy(fileAt source: String, to path: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw Failure(kind: .io, path: path, reason: "cannot read \(source): \(errorText(errno))")
        }
        defer { close(input) }
        try write(to: path) { descriptor in
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if count == 0 { return nil }
                if let failure = buffer.withUnsafeBytes({ writeAll(descriptor, $0.baseAddress!, count) }) {
                    return failure
                }
            }
        }
    }

    /// The path a write to `path` lands on: symlinks followed (relative ones from their own folder);
    /// a dangling link gives the missing path it names.
    package static func resolved(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {  // the kernel's own limit on a chain of links
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK,
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current)
            else { return current }
            current =
                target.hasPrefix("/")
                ? target
                : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(target)
        }
        return current
    }

    package static func kind(at path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regularFile
        case S_IFDIR: return .folder
        case S_IFCHR: return .characterDevice
        case S_IFIFO: return .fifo
        case S_IFBLK: return .blockDevice
        default: return .socket
        }
    }

    /// Why `path` cannot be written as a file, before anything is written (nil when it can be):
    /// for checking every output before the work that produces it.
    package static func refusal(_ path: String) -> Failure? {
        switch kind(at: path) {
        case .folder: return Failure(kind: .notAFile, path: path, reason: "it is a folder, not a file")
        case .blockDevice:
            return Failure(
                kind: .notAFile,
                path: path,
                reason: "it is a block device; bench writes only files, character devices and FIFOs"
            )
        case .socket:
            return Failure(
                kind: .notAFile,
                path: path,
                reason: "it is a socket; bench writes only files, character devices and FIFOs"
            )
        case .missing, .regularFile, .characterDevice, .fifo: return nil
        }
    }

    /// Writes through `body`, which returns the errno of a failed write or nil.
    private static func write(to path: String, body: (Int32) -> Int32?) throws {
        let target = resolved(path)
        if let refusal = refusal(target) { throw Failure(kind: refusal.kind, path: path, reason: refusal.reason) }
        switch kind(at: target) {
        case .characterDevice, .fifo: try writeThrough(path: path, target: target, body: body)
        default: try replace(path: path, target: target, body: body)
        }
    }

    /// A device or FIFO: opened and written, never renamed over. A FIFO is opened without waiting:
    /// with no reader that fails (ENXIO) at once instead of hanging the run.
    private static func writeThrough(path: String, target: String, body: (Int32) -> Int32?) throws {
        let descriptor = open(target, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENXIO {
                throw Failure(
                    kind: .notAFile,
                    path: path,
                    reason: "it is a FIFO that nobody is reading; start its reader first, or choose a file"
                )
            }
            throw Failure(kind: .io, path: path, reason: errorText(code))
        }
        // Blocking from here: a reader that reads slowly is waited for, not failed with EAGAIN.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let failure = body(descriptor)
        let closed = close(descriptor) == 0 ? nil : errno
        if let code = failure ?? closed { throw Failure(kind: .io, path: path, reason: errorText(code)) }
    }

    /// A regular file or nothing: a temporary file beside it, then rename(2). An existing file keeps its permissions.
    private static func replace(path: String, target: String, body: (Int32) -> Int32?) throws {
        let folder = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        let temporary = ((folder.isEmpty ? "." : folder) as NSString)
            .appendingPathComponent(".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        var existing = stat()
        let replacing = stat(target, &existing) == 0
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(kind: .io, path: path, reason: errorText(errno)) }
        if replacing { _ = fchmod(descriptor, mode_t(existing.st_mode & 0o7777)) }
        let failure = body(descriptor)
        let closed = close(descriptor) == 0 ? nil : errno
        if let code = failure ?? closed {
            unlink(temporary)
            throw Failure(kind: .io, path: path, reason: errorText(code))
        }
        // Checked again just before the rename: something other than a file may have appeared.
        let now = kind(at: target)
        guard now == .missing || now == .regularFile else {
            unlink(temporary)
            throw Failure(
                kind: .notAFile,
                path: path,
                reason: "it became something other than a file while being written"
            )
        }
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(kind: .io, path: path, reason: errorText(code))
        }
    }

    /// Writes every byte (short writes and EINTR resumed); the errno of a failure, or nil.
    private static func writeAll(_ descriptor: Int32, _ start: UnsafeRawPointer, _ count: Int) -> Int32? {
        var written = 0
        while written < count {
            let result = Glibc.write(descriptor, start + written, count - written)
            if result < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += result
        }
        return nil
    }

    private static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
