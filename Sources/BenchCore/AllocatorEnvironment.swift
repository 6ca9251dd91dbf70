import Foundation

/// Environment variables that change how the measured children allocate: glibc's tunables and
/// `MALLOC_*` settings (an mmap threshold moves data+full [system] from 109.6 to 125.7 MB),
/// jemalloc's `MALLOC_CONF`. Every child inherits the parent's environment, so a run records
/// them and says so. LD_PRELOAD is not among them: the harness sets it for every child itself.
package enum AllocatorEnvironment {
    /// "NAME=value" for each such variable in `environment`, sorted by name.
    package static func settings(in environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        environment.filter { affectsAllocation($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    static func affectsAllocation(_ name: String) -> Bool {
        name == "GLIBC_TUNABLES" || name.hasPrefix("MALLOC_") || name.hasPrefix("_RJEM_MALLOC_")
    }

    /// One line naming `settings`, nil when there are none; `record` says where they are kept.
    package static func warning(_ settings: [String], record: String) -> String? {
        guard !settings.isEmpty else { return nil }
        return "warning: allocator settings in the environment reach every measured child and change its figures: "
            + settings.joined(separator: " ") + " (\(record))"
    }
}
