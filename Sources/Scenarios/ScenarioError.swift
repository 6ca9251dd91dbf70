import Glibc

/// A scenario that cannot be set up or run, with a message a person can act on.
public enum ScenarioError: Error, CustomStringConvertible, Equatable {
    /// `--memory-limit` is below what the child already uses (VmData) plus 16 MiB of room.
    case memoryLimitTooSmall(limitBytes: Int, usedBytes: Int)
    /// setrlimit(RLIMIT_DATA) failed.
    case memoryLimitNotSet(limitBytes: Int, errno: Int32)
    /// An existing scenario CSV whose header is not the one this version writes.
    case foreignColumns(path: String)

    public var description: String {
        switch self {
        case .memoryLimitTooSmall(let limit, let used):
            return "--memory-limit \(limit) bytes leaves no room: the child already uses \(used) bytes of RLIMIT_DATA (VmData) before any work; allow at least 16 MiB more"
        case .memoryLimitNotSet(let limit, let errno):
            return "setrlimit(RLIMIT_DATA, \(limit)) failed: \(String(cString: strerror(errno)))"
        case .foreignColumns(let path):
            return "\(path) has other columns than this version writes; move it away first"
        }
    }
}
