import BenchCore
import Foundation

/// Writes a results file through `SafeFile`: a regular file is replaced atomically, a symlink's
/// target is replaced and the link kept, a device or a read FIFO is written through, anything else
/// refused. On every failure (a full disk, a read-only folder) nothing is left behind.
package enum AtomicFile {
    package struct WriteError: Error, CustomStringConvertible {
        package var path: String
        package var reason: String
        /// The path is not something a file can be written to (a folder, a FIFO nobody reads).
        package var notAFile = false
        package var description: String { "cannot write \(path): \(reason)" }
    }

    package static func write(_ contents: String, to url: URL) throws {
        try write(Data(contents.utf8), to: url)
    }

    package static func write(_ data: Data, to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw WriteError(path: url.path, reason: "cannot create its folder \(folder.path): \(Self.reason(error))")
        }
        do {
            try SafeFile.write(data, to: url.path)
        } catch let failure as SafeFile.Failure {
            throw WriteError(path: url.path, reason: failure.reason, notAFile: failure.kind == .notAFile)
        }
    }

    /// Writes a file of a run's own folder (rows, summaries, settings, shard and merge records): a
    /// symlink there is replaced by the file, never written through, so a link placed in `--out`
    /// cannot make a run write outside its folder. A path the user names (`--baseline`,
    /// `--report-file`) goes through `write(_:to:)`, which follows links.
    package static func writeInFolder(_ data: Data, to url: URL) throws {
        try RunFolderLink.replace(at: url)
        try write(data, to: url)
    }

    package static func writeInFolder(_ contents: String, to url: URL) throws {
        try writeInFolder(Data(contents.utf8), to: url)
    }

    /// Writes `name`, a path inside the run's `folder` ("charts/data/corpus.dat"): a link at the
    /// file or at any folder between it and `folder` is replaced, so no part of the path leads out.
    package static func writeInFolder(_ data: Data, named name: String, in folder: URL) throws {
        var url = folder
        for component in name.split(separator: "/") {
            url.appendPathComponent(String(component))
            try RunFolderLink.replace(at: url)
        }
        try write(data, to: url)
    }

    /// The POSIX reason inside a Foundation error, when there is one ("No space left on device").
    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}
