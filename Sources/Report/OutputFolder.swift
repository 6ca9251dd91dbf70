import Foundation

/// The folder a run writes into, checked, locked and named before the first trial:
/// - by default a new `runs/<UTC time>/` (gitignored), never the committed `results/`;
///   `runs/latest` points to the newest run once its files are written;
/// - created and write-tested at once, so an unwritable `--out` (a file, a read-only or full
///   file system) fails in a second, not after every trial (exit 73);
/// - locked (flock on `.bench.lock`, held until the process exits), so two runs cannot write
///   one folder: the second is refused with the first one's pid (exit 75).
public final class OutputFolder: ResultsFolder, Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public enum Kind: Sendable { case cannotCreate, busy }
        public var kind: Kind
        public var description: String
    }

    public static let lockFileName = ".bench.lock"
    public static let latestLinkName = "latest"

    public let directory: URL
    /// Names this run in every file it writes (run_id columns, trials.json's context).
    public let runID: String
    /// The `runs/` folder when the folder was chosen by default (and `latest` is to be updated).
    public let runsRoot: URL?
    private let lockDescriptor: Int32

    /// Opens `out`, or a new folder under `runsRoot` when `out` is nil.
    public static func open(out: String?, runsRoot: String = "runs") throws -> OutputFolder {
        let stamp = timestamp()
        let runID = "\(stamp)-\(getpid())"
        guard let out else {
            let root = URL(fileURLWithPath: runsRoot, isDirectory: true)
            try makeFolders(root.path, shownAs: root.path)
            // mkdir is atomic: two runs started in the same second get two folders.
            for attempt in 1...100 {
                let name = attempt == 1 ? stamp : "\(stamp)-\(attempt)"
                let folder = root.appendingPathComponent(name, isDirectory: true)
                if mkdir(folder.path, 0o755) == 0 {
                    return try OutputFolder(directory: folder, runID: runID, runsRoot: root)
                }
                guard errno == EEXIST else {
                    throw Failure(kind: .cannotCreate, description: "cannot create the run folder \(folder.path): \(String(cString: strerror(errno)))")
                }
            }
            throw Failure(kind: .cannotCreate, description: "cannot create a run folder under \(root.path): 100 names taken")
        }
        let folder = URL(fileURLWithPath: out, isDirectory: true)
        try makeFolders(folder.path, shownAs: out)
        return try OutputFolder(directory: folder, runID: runID, runsRoot: nil)
    }

    private init(directory: URL, runID: String, runsRoot: URL?) throws {
        self.directory = directory
        self.runID = runID
        self.runsRoot = runsRoot
        let lockPath = directory.appendingPathComponent(Self.lockFileName).path
        let descriptor = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Failure(kind: .cannotCreate, description: "cannot write into --out \(directory.path): \(String(cString: strerror(errno)))")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let holder = Self.readPID(descriptor)
            close(descriptor)
            throw Failure(kind: .busy, description: "\(directory.path) is in use by another bench run\(holder.map { " (pid \($0))" } ?? ""); "
                          + "wait for it to finish or choose another --out")
        }
        // The pid is both the holder's name for a refused run and the write test: on a full or
        // read-only file system this fails now, before any trial.
        let pid = Array("\(getpid())\n".utf8)
        let written = ftruncate(descriptor, 0) == 0 ? pwrite(descriptor, pid, pid.count, 0) : -1
        guard written == pid.count, fsync(descriptor) == 0 else {
            let reason = written >= 0 && written < pid.count ? "short write" : String(cString: strerror(errno))
            close(descriptor)
            unlink(lockPath)
            throw Failure(kind: .cannotCreate, description: "cannot write into --out \(directory.path): \(reason)")
        }
        lockDescriptor = descriptor
    }

    deinit { close(lockDescriptor) }

    /// Points `runs/latest` at this run (a relative link, replaced atomically). Only for default folders.
    public func markLatest() {
        guard let runsRoot else { return }
        let link = runsRoot.appendingPathComponent(Self.latestLinkName).path
        let temporary = runsRoot.appendingPathComponent(".\(Self.latestLinkName).\(getpid())").path
        unlink(temporary)
        guard symlink(directory.lastPathComponent, temporary) == 0 else { return }
        if rename(temporary, link) != 0 { unlink(temporary) }
    }

    /// `2026-11-23T16-42-05Z`: UTC, sortable, no colons (they trouble make and some file systems).
    static func timestamp(_ date: Date = Date()) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02dT%02d-%02d-%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    /// mkdir -p with the reason of the first failure, e.g. "… is a file, not a folder".
    static func makeFolders(_ path: String, shownAs shown: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw Failure(kind: .cannotCreate, description: "--out \(shown) is a file, not a folder; choose a folder (it is created if missing)")
            }
            return
        }
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/\(component)"
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                let reason = String(cString: strerror(errno))
                throw Failure(kind: .cannotCreate, description: "cannot create --out \(shown) (at \(current)): \(reason)")
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: current, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw Failure(kind: .cannotCreate, description: "cannot create --out \(shown): \(current) is a file, not a folder")
            }
        }
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
