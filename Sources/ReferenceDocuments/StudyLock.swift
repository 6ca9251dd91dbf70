import Foundation

/// The lock that keeps a second `bench-reference measure` out while one runs: the studies measure
/// into fixed scratch folders, which a second study would remove under the first. An advisory
/// `flock` on a file that holds the holder's pid; the kernel drops it when the holder exits, however.
package final class StudyLock {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        /// Another study holds the lock (as opposed to a lock file that cannot be opened).
        package var isBusy: Bool
    }

    private let descriptor: Int32

    package init(path: String) throws(Failure) {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))", isBusy: false)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder =
                (try? String(contentsOfFile: path, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(descriptor)
            throw Failure(
                description: "another bench-reference measure (pid \(holder.isEmpty ? "unknown" : holder)) holds "
                    + "\(path): the studies share their scratch folders; wait for it to end",
                isBusy: true
            )
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = pid.withCString { write(descriptor, $0, strlen($0)) }
    }

    deinit { close(descriptor) }
}
