import Foundation

/// Writes a file so that readers see the old content or the new, never half of it:
/// a temporary file in the same folder, then rename(2). On every failure (a full disk, a
/// read-only folder) the temporary file is removed, so a failed write leaves nothing behind.
public enum AtomicFile {
    public struct WriteError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    public static func write(_ contents: String, to url: URL) throws {
        try write(Data(contents.utf8), to: url)
    }

    public static func write(_ data: Data, to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw WriteError(path: url.path, reason: "cannot create its folder \(folder.path): \(Self.reason(error))")
        }
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw WriteError(path: url.path, reason: String(cString: strerror(errno))) }
        func fail(_ code: Int32) -> WriteError {
            close(descriptor)
            unlink(temporary)
            return WriteError(path: url.path, reason: String(cString: strerror(code)))
        }
        var written = 0
        let failure: Int32? = data.withUnsafeBytes { bytes -> Int32? in
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        if let failure { throw fail(failure) }
        guard close(descriptor) == 0 else {
            let code = errno
            unlink(temporary)
            throw WriteError(path: url.path, reason: String(cString: strerror(code)))
        }
        guard rename(temporary, url.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw WriteError(path: url.path, reason: String(cString: strerror(code)))
        }
    }

    /// The POSIX reason inside a Foundation error, when there is one ("No space left on device").
    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}
