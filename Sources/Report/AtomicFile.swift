import Foundation

/// Writes a file so that readers see the old content or the new, never half of it:
/// a temporary file in the same folder, then rename(2).
public enum AtomicFile {
    public static func write(_ contents: String, to url: URL) throws {
        try write(Data(contents.utf8), to: url)
    }

    public static func write(_ data: Data, to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        try data.write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: reason])
        }
    }
}
