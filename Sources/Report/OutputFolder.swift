import BenchCore
import Foundation

/// The folder a run writes into, checked, locked and named before the first trial:
/// - by default a new `runs/<UTC time>/` (gitignored), never the committed `results/`;
///   `runs/latest` points to the newest run once its files are written;
/// - created and write-tested at once, so an unwritable `--out` (a file, a read-only or full
///   file system) fails in a second, not after every trial (exit 73);
/// - locked (flock on `.bench.lock`, held until the process exits), so two runs cannot write
///   one folder: the second is refused with the first one's pid (exit 75);
/// - every file the run will write checked: one that is a folder, a FIFO or a socket is refused
///   (exit 73), and so is one that holds an earlier run's rows, naming that run, unless the
///   command was told to replace them (`--replace`).
package final class OutputFolder: ResultsFolder, Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package enum Kind: Sendable { case cannotCreate, busy }
        package var kind: Kind
        package var description: String
    }

    /// A file the run writes into its folder.
    package struct File: Sendable {
        package var name: String
        /// Whether it is replaced whole (a second run's file would drop the first run's rows);
        /// false for files that are appended to (list-scroll.csv) or carry no rows.
        package var replacesRows: Bool

        package init(_ name: String, replacesRows: Bool = true) {
            self.name = name
            self.replacesRows = replacesRows
        }
    }

    package static let lockFileName = ".bench.lock"
    package static let latestLinkName = "latest"

    package let directory: URL
    /// Names this run in every file it writes (run_id columns, trials.json's context).
    package let runID: String
    /// The `runs/` folder when the folder was chosen by default (and `latest` is to be updated).
    package let runsRoot: URL?
    private let lock: PIDFileLock

    /// Opens `out`, or a new folder under `runsRoot` when `out` is nil, and checks `files` there
    /// (`replacing`: an earlier run's rows may be overwritten).
    /// `runID`: the id of an interrupted run being resumed (default: a new one).
    package static func open(
        out: String?,
        runsRoot: String = "runs",
        files: [File] = [],
        replacing: Bool = false,
        runID: String? = nil
    ) throws -> OutputFolder {
        let folder = try open(out: out, runsRoot: runsRoot, runID: runID)
        try folder.check(files, replacing: replacing)
        return folder
    }

    private static func open(out: String?, runsRoot: String, runID: String?) throws -> OutputFolder {
        let stamp = timestamp()
        let runID = runID ?? "\(stamp)-\(getpid())"
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
                    throw Failure(
                        kind: .cannotCreate,
                        description: "cannot create the run folder \(folder.path): \(String(cString: strerror(errno)))"
                    )
                }
            }
            throw Failure(
                kind: .cannotCreate,
                description: "cannot create a run folder under \(root.path): 100 names taken"
            )
        }
        let folder = URL(fileURLWithPath: out, isDirectory: true)
        try makeFolders(folder.path, shownAs: out)
        return try OutputFolder(directory: folder, runID: runID, runsRoot: nil)
    }

    private init(directory: URL, runID: String, runsRoot: URL?) throws {
        self.directory = directory
        self.runID = runID
        self.runsRoot = runsRoot
        // The pid is both the holder's name for a refused run and the write test: on a full or
        // read-only file system the lock fails now, before any trial.
        do { lock = try PIDFileLock(path: directory.appendingPathComponent(Self.lockFileName).path) } catch {
            switch error {
            case .busy(let holder):
                throw Failure(
                    kind: .busy,
                    description:
                        "\(directory.path) is in use by another bench run\(holder.map { " (pid \($0))" } ?? ""); "
                        + "wait for it to finish or choose another --out"
                )
            case .cannotOpen(let reason), .cannotWrite(let reason):
                throw Failure(kind: .cannotCreate, description: "cannot write into --out \(directory.path): \(reason)")
            }
        }
    }

    /// Whether a live bench run holds `directory`'s lock (its pid, when it wrote one); nil when
    /// none does. Only tests the lock (a shared one, released at once): creates nothing.
    package static func liveRun(in directory: URL) -> LiveRun? {
        PIDFileLock.holder(at: directory.appendingPathComponent(lockFileName).path).map { LiveRun(pid: $0.pid) }
    }

    package struct LiveRun: Sendable {
        package var pid: Int32?
    }

    /// Refuses, before the first trial, a file the run could not write at the end (a folder, a
    /// FIFO, a socket where a file goes) and one that would drop an earlier run's rows.
    func check(_ files: [File], replacing: Bool) throws {
        for file in files {
            let path = SafeFile.resolved(directory.appendingPathComponent(file.name).path)
            let shown = "\(file.name) in --out \(directory.path)"
            switch SafeFile.kind(at: path) {
            case .missing, .characterDevice: continue
            case .regularFile: break
            case .folder:
                throw Failure(
                    kind: .cannotCreate,
                    description: "cannot write \(shown): it is a folder, not a file; remove it or choose another --out"
                )
            case .fifo, .socket, .blockDevice:
                throw Failure(
                    kind: .cannotCreate,
                    description:
                        "cannot write \(shown): it is not a regular file (a FIFO, socket or block device); choose another --out"
                )
            }
            guard file.replacesRows, !replacing,
                let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber,
                size.intValue > 0
            else { continue }
            let earlier = Self.recordedRunID(path).map { "run \($0)" } ?? "an earlier run"
            throw Failure(
                kind: .cannotCreate,
                description: "--out \(directory.path) already holds \(file.name) of \(earlier); "
                    + "choose a new folder (or no --out for a new runs/<UTC time>/), or add --replace to overwrite it"
            )
        }
    }

    /// The run_id of a CSV's first row, if it has that column.
    static func recordedRunID(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 1 << 16)) ?? Data(), as: UTF8.self)
        let lines = head.split(separator: "\n", maxSplits: 2).map(String.init)
        guard lines.count >= 2, let table = try? CSV.parse(lines[0] + "\n" + lines[1] + "\n"), table.count == 2,
            let column = table[0].firstIndex(of: TrialsCSV.runIDColumn), column < table[1].count,
            !table[1][column].isEmpty
        else { return nil }
        return table[1][column]
    }

    /// Points `runs/latest` at this run (a relative link, replaced atomically). Only for default folders.
    /// Something else named `latest` (a file or folder of the user's) is left alone.
    package func markLatest() {
        guard let runsRoot else { return }
        let link = runsRoot.appendingPathComponent(Self.latestLinkName).path
        var info = stat()
        if lstat(link, &info) == 0 && (info.st_mode & S_IFMT) != S_IFLNK { return }
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
        return String(
            format: "%04d-%02d-%02dT%02d-%02d-%02dZ",
            parts.tm_year + 1900,
            parts.tm_mon + 1,
            parts.tm_mday,
            parts.tm_hour,
            parts.tm_min,
            parts.tm_sec
        )
    }

    /// mkdir -p with the reason of the first failure, e.g. "… is a file, not a folder".
    static func makeFolders(_ path: String, shownAs shown: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw Failure(
                    kind: .cannotCreate,
                    description: "--out \(shown) is a file, not a folder; choose a folder (it is created if missing)"
                )
            }
            return
        }
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/\(component)"
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                let reason = String(cString: strerror(errno))
                throw Failure(
                    kind: .cannotCreate,
                    description: "cannot create --out \(shown) (at \(current)): \(reason)"
                )
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: current, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw Failure(
                    kind: .cannotCreate,
                    description: "cannot create --out \(shown): \(current) is a file, not a folder"
                )
            }
        }
    }
}
