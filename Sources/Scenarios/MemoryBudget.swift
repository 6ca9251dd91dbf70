import CThreadGuard
import Foundation
import Probe

/// A hard memory limit the child puts on itself, like the system killing an app over budget.
///
/// RLIMIT_DATA, set with setrlimit before the warm-up: since Linux 4.7 it caps the heap and
/// every private writable mapping (malloc's arenas and mmap'd blocks, thread stacks), so an
/// allocation over budget fails and Swift traps. RLIMIT_AS would also count libraries and
/// the address space malloc reserves without touching, which says little about memory; and
/// cgroup v2 is not available here (/sys/fs/cgroup has no cgroup.controllers).
/// Because a trapped child cannot report, it keeps its peak RSS in a file the parent reads.
package enum MemoryBudget {
    static let peakFileName = "peak-rss"

    package static func apply(limitBytes: Int) throws {
        // Below what is mapped already, every later allocation fails, threads cannot start and
        // the child hangs rather than dies: say so instead.
        if let used = dataSegmentBytes(), limitBytes < used + 16 << 20 {
            throw ScenarioError.memoryLimitTooSmall(limitBytes: limitBytes, usedBytes: used)
        }
        var limit = rlimit(rlim_cur: rlim_t(limitBytes), rlim_max: rlim_t(limitBytes))
        guard setrlimit(Int32(RLIMIT_DATA.rawValue), &limit) == 0 else {
            throw ScenarioError.memoryLimitNotSet(limitBytes: limitBytes, errno: errno)
        }
        // A thread's stack counts too: when one cannot start, libdispatch retries forever and the
        // scroll waits for it. Over budget is a killed child, at once.
        threadguard_abort_on_failure(Self.threadFailureMessage(limitBytes: limitBytes))
    }

    /// The child's last words when a thread cannot start under the limit ("Fatal error:" so that
    /// the parent's `ChildFailure` puts it in the row).
    static func threadFailureMessage(limitBytes: Int) -> String {
        "Fatal error: a thread could not start (EAGAIN): its stack does not fit under --memory-limit \(limitBytes) bytes (RLIMIT_DATA counts thread stacks)"
    }

    /// VmData from /proc/self/status: what RLIMIT_DATA counts.
    static func dataSegmentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmData:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    /// Writes VmHWM to `<folder>/peak-rss` every 10 ms (one open descriptor, 8 bytes, no allocation per write).
    package static func recordPeak(in folder: URL) -> DispatchSourceTimer? {
        let descriptor = open(
            folder.appendingPathComponent(peakFileName).path,
            O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
            0o644
        )
        guard descriptor >= 0 else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "peak-rss"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(10))
        timer.setEventHandler {
            var peak = Int64(ProcessMemory.peakResidentBytes() ?? 0)
            _ = pwrite(descriptor, &peak, 8, 0)
        }
        timer.resume()
        return timer
    }

    /// The last peak a child recorded in `folder`, or nil.
    package static func recordedPeak(in folder: URL) -> Int? {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent(peakFileName)), data.count == 8 else {
            return nil
        }
        return Int(data.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) })
    }
}
