import Foundation

/// A symlink inside a run's folder is the folder's file, not a door out of it: before a run writes
/// or appends to one of its files, a link at that path is removed (its target left as it was), and
/// what the link showed, when the run goes on from it (`--resume`), is copied into a regular file.
package enum RunFolderLink {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The run folder's own subfolders for charts (`charts`, `charts/data`): a link at either is
    /// removed, so chart files land in the folder, never where the link points.
    package static func replaceChartFolders(in folder: URL) throws {
        try replace(at: folder.appendingPathComponent("charts"))
        try replace(at: folder.appendingPathComponent("charts/data"))
    }

    /// Whether `url` is a symlink (dangling or not).
    package static func isLink(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Removes a link at `url`; with `keepingContent`, a regular file with what the link showed takes
    /// its place (nothing when it showed nothing readable).
    package static func replace(at url: URL, keepingContent: Bool = false) throws {
        guard isLink(url) else { return }
        let content = keepingContent ? FileManager.default.contents(atPath: url.path) : nil
        guard unlink(url.path) == 0 || errno == ENOENT else {
            throw Failure(description: "cannot replace the link \(url.path): \(String(cString: strerror(errno)))")
        }
        if let content {
            let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw Failure(description: "cannot create \(url.path): \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            let written = content.withUnsafeBytes { $0.isEmpty ? 0 : write(descriptor, $0.baseAddress, $0.count) }
            guard written == content.count else {
                throw Failure(
                    description: "cannot copy what the link \(url.path) showed: \(String(cString: strerror(errno)))"
                )
            }
        }
    }
}
