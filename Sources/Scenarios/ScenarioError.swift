import BenchCore
import Glibc

/// A scenario that cannot be set up or run, with a message a person can act on.
package enum ScenarioError: Error, CustomStringConvertible, Equatable {
    /// `--memory-limit` is below what the child already uses (VmData) plus 16 MiB of room.
    case memoryLimitTooSmall(limitBytes: Int, usedBytes: Int)
    /// setrlimit(RLIMIT_DATA) failed.
    case memoryLimitNotSet(limitBytes: Int, errno: Int32)
    /// An existing scenario CSV whose header is not the one this version writes.
    case foreignColumns(path: String)
    /// A list-scroll CSV of a format older than the one before this bench's (its columns a subset of today's).
    case olderFormat(path: String)
    /// A scenario CSV that cannot be read as one.
    case malformed(path: String, reason: String)
    /// A scenario CSV whose rows come from scrolls of different settings, where one set is expected
    /// (a chart of one setting): how many groups, and each differing setting with its values.
    case mixedSettings(path: String, groups: Int, differing: [String])
    /// A scenario CSV whose rows differ in settings other than those it compares (`varying`):
    /// each differing setting with its values.
    case settingsBeyond(path: String, varying: [String], differing: [String])

    package var description: String {
        switch self {
        case .memoryLimitTooSmall(let limit, let used):
            return
                "--memory-limit \(limit) bytes leaves no room: the child already uses \(used) bytes of RLIMIT_DATA (VmData) before any work; allow at least 16 MiB more"
        case .memoryLimitNotSet(let limit, let errno):
            return "setrlimit(RLIMIT_DATA, \(limit)) failed: \(String(cString: strerror(errno)))"
        case .foreignColumns(let path):
            return "\(path) has other columns than this version writes; move it away first"
        case .olderFormat(let path):
            return "\(path) is a list-scroll file from before format 1 (no settings columns, run_id or floor_bytes); "
                + "this bench reads formats \(ResultsFormat.readable): measure it again (bench scenario list-scroll --out DIR)"
        case .malformed(let path, let reason):
            return "\(path) is not a scenario CSV: \(reason)"
        case .mixedSettings(let path, let groups, let differing):
            return "\(path) mixes rows of \(groups) different settings (\(differing.joined(separator: "; "))); "
                + "one chart would put them together: write each setting to its own --out folder"
        case .settingsBeyond(let path, let varying, let differing):
            let allowed = varying.isEmpty ? "strategy, render and cap" : varying.joined(separator: ", ")
            return "\(path) mixes rows that differ in more than \(allowed) "
                + "(\(differing.joined(separator: "; "))); its figures would mix them: "
                + "re-measure the file whole (bench-reference measure scenario)"
        }
    }
}
