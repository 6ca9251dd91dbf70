import Foundation

/// The scratch folders of bench processes that are gone: a parent killed by SIGKILL (or a power
/// cut) never runs its clean-up, and its `$TMPDIR/bench-<pid>-<id>` (a partial download of
/// megabytes) would stay forever. A new run removes them, and nothing else:
/// - only our own names: `bench-<pid>-<8 hex>`, and `bench-corpus-`, `bench-scenario-` and `bench-server-`
///   before `<pid>-<8 hex>`
///   (never `bench-rescue-*`, which holds a failed run's results);
/// - only real folders (not symlinks) owned by this user;
/// - only when the pid is no process, or a process that started after the folder last changed
///   (the pid reused: it cannot be the one that made the folder).
package enum StaleScratch {
    /// Removes the leftovers in `folder` (default $TMPDIR); returns the paths removed.
    @discardableResult
    package static func removeLeftovers(in folder: URL = FileManager.default.temporaryDirectory) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        var removed: [String] = []
        for name in names {
            guard let pid = ownerPID(name), pid != getpid() else { continue }
            let path = folder.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid(),
                !isAlive(pid, folderChangedAt: info.st_ctim.tv_sec)
            else { continue }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
        }
        return removed
    }

    /// The words between `bench-` and the pid in the scratch folders of a corpus, a scroll and a server run.
    static let scratchKinds = ["corpus-", "scenario-", "server-"]

    /// The pid in one of our scratch names, or nil for any other name.
    package static func ownerPID(_ name: String) -> pid_t? {
        var rest = Substring(name)
        guard rest.hasPrefix("bench-") else { return nil }
        rest = rest.dropFirst("bench-".count)
        for kind in scratchKinds where rest.hasPrefix(kind) { rest = rest.dropFirst(kind.count) }
        let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy(\.isASCII), parts[0].allSatisfy(\.isNumber),
            parts[1].count == 8, parts[1].allSatisfy(\.isHexDigit), let pid = pid_t(parts[0]), pid > 0
        else { return nil }
        return pid
    }

    /// Whether `pid` may still be the process that made a folder last changed at `changed` (seconds).
    static func isAlive(_ pid: pid_t, folderChangedAt changed: Int) -> Bool {
        if kill(pid, 0) != 0 && errno == ESRCH { return false }
        guard let started = startTime(of: pid) else { return true }  // unknown: keep the folder
        return started <= changed + 1  // one second of slack for the clocks' rounding
    }

    /// When `pid` started, in seconds since the epoch: boot time plus field 22 of /proc/<pid>/stat.
    static func startTime(of pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),  // the command name may hold spaces and parentheses
            let boot = try? String(contentsOfFile: "/proc/stat", encoding: .utf8)
                .split(separator: "\n").first(where: { $0.hasPrefix("btime ") })?.split(separator: " ").last.flatMap({
                    Int($0)
                })
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state): field 22 (starttime, clock ticks after boot) is fields[19].
        guard fields.count > 19, let ticks = Int(fields[19]) else { return nil }
        return boot + ticks / max(1, sysconf(Int32(_SC_CLK_TCK)))
    }
}
