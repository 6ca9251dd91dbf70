import BenchCore
import CHeapPeak
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads this process's resident set size from procfs.
///
/// `/proc/self/statm` is opened once and read with `pread`, so a sample costs one
/// system call and no allocation (the heaptrack way). Each reading has its own buffer, on the
/// calling thread's stack: the trial's main thread (baseline and final readings) and the
/// sampler thread read at the same time, and one shared buffer would let one thread parse
/// bytes the other is overwriting (a torn reading). The kernel serialises reads of one
/// procfs file, so the descriptor can be shared. Since Linux 6.2 the kernel keeps
/// RSS in per-CPU counters and statm reports the folded total: each CPU may hold back
/// up to 32 pages (128 KiB on this 2-core machine: at most 256 KiB in all), which bounds
/// the error of a single sample.
package final class ProcessMemory: Sendable {
    package static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    private let statmDescriptor: Int32

    package init() throws {
        statmDescriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard statmDescriptor >= 0 else {
            throw ProbeError.procfs(path: "/proc/self/statm", action: "open", errno: errno)
        }
    }

    deinit {
        close(statmDescriptor)
    }

    /// The open /proc/self/statm, for a reading taken in C (a residency snapshot's, under its lock).
    package var statmFileDescriptor: Int32 { statmDescriptor }

    /// Current RSS in bytes: the second field of statm (resident pages) times the page size.
    /// Safe to call from several threads at once; never allocates (the buffer is on the stack).
    package func residentBytes() -> Int { readStatm().resident }

    /// RSS and its file-backed part (statm's third field, `shared`: mapped files, code, shared
    /// memory), in bytes, from one reading. The rest of RSS is anonymous. Never allocates: the parser is
    /// CHeapPeak's, the one a residency snapshot uses under its lock.
    package func readStatm() -> (resident: Int, file: Int) {
        var resident: UInt64 = 0
        var file: UInt64 = 0
        heappeak_read_statm(statmDescriptor, &resident, &file)
        return (Int(resident), Int(file))
    }

    /// The kernel's RSS high-water mark (VmHWM) in bytes. Unlike sampling, it also
    /// sees a peak that came and went between two samples, as long as it was unmapped.
    package static func peakResidentBytes() -> Int? {
        statusField("VmHWM:")
    }

    /// VmRSS from /proc/self/status, for cross-checking statm.
    package static func statusResidentBytes() -> Int? {
        statusField("VmRSS:")
    }

    /// Resets VmHWM to the current RSS, so the peak measured next excludes start-up and warm-up.
    /// Writing `5` to clear_refs does exactly that (Linux 4.0+).
    package static func resetPeakResident() throws {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ProbeError.procfs(path: "/proc/self/clear_refs", action: "open", errno: errno)
        }
        defer { close(descriptor) }
        let written = write(descriptor, "5", 1)
        guard written == 1 else {
            throw ProbeError.procfs(path: "/proc/self/clear_refs", action: "reset VmHWM by writing to", errno: errno)
        }
    }

    /// The kernel's start_brk (/proc/self/stat's 47th field): where the program break's heap, glibc's
    /// main arena, begins.
    package static func programBreakStart() throws -> UInt {
        let path = "/proc/self/stat"
        guard let bytes = procFile(path) else {
            throw ProbeError.procfs(path: path, action: "open", errno: errno)
        }
        // The fields after the command's closing parenthesis (the command may hold spaces) start at the 3rd.
        let afterCommand = bytes.lastIndex(of: UInt8(ascii: ")")).map { bytes[($0 + 1)...] } ?? []
        let fields = afterCommand.split(separator: UInt8(ascii: " "))
        guard fields.count > 44, let start = UInt(String(decoding: fields[44], as: UTF8.self)) else {
            throw ProbeError.procfs(path: path, action: "read start_brk from", errno: EINVAL)
        }
        return start
    }

    /// A whole /proc file (nil: it cannot be opened). procfs files have no size, so they are read
    /// with read(2) into a buffer rather than through Foundation.
    private static func procFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 16384)
        var length = 0
        while length < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + length, $0.count - length) }
            if count <= 0 { break }
            length += count
        }
        return Array(bytes[..<length])
    }

    /// Reads one "Name:   123 kB" line of /proc/self/status.
    private static func statusField(_ name: String) -> Int? {
        guard let bytes = procFile("/proc/self/status") else { return nil }
        let status = String(decoding: bytes, as: UTF8.self)
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            // The value follows a tab and padding: "VmHWM:\t  123456 kB".
            let kilobytes = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
                .first.flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}

package enum ProbeError: Error, CustomStringConvertible, Equatable {
    /// A /proc file could not be opened or written; `action` says what was being done.
    case procfs(path: String, action: String, errno: Int32)
    /// The sampler's buffer could not be mapped.
    case sampleBuffer(bytes: Int, errno: Int32)
    /// pthread_create failed with `status`.
    case samplerThread(status: Int32)
    /// The allocator in this process is not the one the trial asked for.
    case allocatorMismatch(requested: Allocator)

    package var description: String {
        switch self {
        case .procfs(let path, let action, let errno):
            return "cannot \(action) \(path): \(String(cString: strerror(errno)))"
        case .sampleBuffer(let bytes, let errno):
            return "cannot map the sample buffer (\(bytes) bytes): \(String(cString: strerror(errno)))"
        case .samplerThread(let status):
            return "cannot start the sampler thread: \(String(cString: strerror(status)))"
        case .allocatorMismatch(.jemalloc):
            return "jemalloc requested but not loaded: mallctl is not visible (was libjemalloc.so.2 preloaded?)"
        case .allocatorMismatch(.system):
            return "system allocator requested but jemalloc is loaded in this process"
        }
    }
}
