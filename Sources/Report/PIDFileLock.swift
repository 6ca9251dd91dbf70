import Foundation

/// An exclusive advisory lock (`flock`) on a file that holds its holder's pid, taken without
/// waiting and held until the lock is released or the process exits, however it exits. What keeps
/// a second bench run out of an output folder, and a second study out of the studies' scratch folders.
package final class PIDFileLock: Sendable {
    package enum Failure: Error {
        /// The lock file cannot be opened (the reason).
        case cannotOpen(String)
        /// Another process holds the lock: its pid, when it wrote one.
        case busy(holder: Int32?)
        /// The pid cannot be written (the reason): on a full or read-only file system this fails
        /// before anything else is written.
        case cannotWrite(String)
    }

    private let descriptor: Int32

    package init(path: String) throws(Failure) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotOpen(String(cString: strerror(errno))) }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let holder = Self.readPID(descriptor)
            close(descriptor)
            throw .busy(holder: holder)
        }
        let pid = Array("\(getpid())\n".utf8)
        let written = ftruncate(descriptor, 0) == 0 ? pwrite(descriptor, pid, pid.count, 0) : -1
        guard written == pid.count, fsync(descriptor) == 0 else {
            let reason = written >= 0 && written < pid.count ? "short write" : String(cString: strerror(errno))
            close(descriptor)
            unlink(path)
            throw .cannotWrite(reason)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// A live process holding a lock.
    package struct Holder: Sendable {
        /// Its pid, when it wrote one.
        package var pid: Int32?
    }

    /// The live process that holds the lock at `path`; nil when none does. Only tests the lock (a
    /// shared one, released at once): creates nothing.
    package static func holder(at path: String) -> Holder? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) != 0 else {
            flock(descriptor, LOCK_UN)
            return nil
        }
        return errno == EWOULDBLOCK ? Holder(pid: readPID(descriptor)) : nil
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
