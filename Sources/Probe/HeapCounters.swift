import BenchCore
import CHeapPeak
import CHeapStats

/// One reading of the allocator's counters, in bytes.
package struct HeapSnapshot: Codable, Sendable, Equatable {
    /// Bytes the program holds: malloc'd and not yet freed.
    package var allocated: Int
}

/// Reads the heap counters of the allocator actually in use, without allocating.
package struct HeapCounters: Sendable {
    package let allocator: Allocator

    /// Fails when the requested allocator is not the one serving this process
    /// (for example jemalloc requested but LD_PRELOAD did not take effect).
    package init(expecting allocator: Allocator) throws {
        let jemallocPresent = heapstats_jemalloc_present() != 0
        switch (allocator, jemallocPresent) {
        case (.jemalloc, false):
            throw ProbeError.allocatorMismatch(requested: .jemalloc)
        case (.system, true):
            throw ProbeError.allocatorMismatch(requested: .system)
        default:
            self.allocator = allocator
        }
    }

    /// jemalloc: arena 0's metadata, where its page map's leaves are allocated (glibc: 0).
    package func firstArenaMetadataBytes() -> Int {
        var bytes: UInt64 = 0
        if allocator == .jemalloc { _ = heapstats_read_first_arena_base_jemalloc(&bytes) }
        return Int(bytes)
    }

    /// jemalloc: returns its dirty and muzzy pages to the kernel now (glibc: nothing).
    package func returnFreedPages() {
        if allocator == .jemalloc { _ = heapstats_purge_jemalloc() }
    }

    package func read() -> HeapSnapshot {
        var counters = heapstats_counters()
        switch allocator {
        case .jemalloc: _ = heapstats_read_jemalloc(&counters)
        case .system: _ = heapstats_read_glibc(&counters)
        }
        return HeapSnapshot(allocated: Int(counters.allocated))
    }
}

/// The exact heap high-water mark kept by the allocation wrappers linked into this executable
/// (CHeapPeak). Unlike the sampled counters it cannot miss a short spike: every malloc, free and
/// realloc updates it, and a realloc that moves its block counts both blocks during the copy.
/// It counts usable sizes (what the allocator handed out, rounding included). Reading it is a
/// plain call and an atomic load: no allocation, no dlsym.
package struct ExactHeapPeak: Sendable {
    /// The environment variable that turns the counting off in a process started with it set to
    /// `off` (`bench run --no-exact-heap` sets it for the children).
    package static let environmentVariable = HEAPPEAK_ENVIRONMENT_VARIABLE

    /// nil when the counting is off in this process (`BENCH_EXACT_HEAP=off`).
    package init?() {
        guard heappeak_counting() != 0 else { return nil }
    }

    /// Starts a new window: the maximum restarts from the live bytes now, which it returns.
    @discardableResult
    package func reset() -> Int {
        heappeak_reset()
        return read().live
    }

    /// The maximum over the process's whole life, start-up and warm-up included (what heaptrack
    /// and massif report), as opposed to `read().peak`, the maximum since `reset()`.
    package func lifetimePeak() -> Int {
        Int(heappeak_lifetime())
    }

    /// Closes the window: the maximum no longer moves (until the next `reset()`).
    package func freeze() {
        heappeak_freeze()
    }

    package func read() -> (live: Int, peak: Int) {
        var live: UInt64 = 0
        var peak: UInt64 = 0
        heappeak_read(&live, &peak)
        return (Int(live), Int(peak))
    }
}
