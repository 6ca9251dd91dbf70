import BenchCore
import CHeapPeak
import CHeapStats
import CThreadGuard

#if canImport(Glibc)
import Glibc
#endif

/// What of RSS one moment's reading explains, by category, in bytes (see `ResidencyCategory`).
package struct ResidencySnapshot: Sendable, Equatable {
    package var time: UInt64 = 0
    package var residentBytes = 0
    /// statm's shared field: file-backed pages (mapped files, code, unwind tables).
    package var fileBytes = 0
    /// The heap's live bytes (exact when counted, else the allocator's counter).
    package var heapLiveBytes = 0
    /// The recorded (large) blocks live now, and their resident part (mincore).
    package var holderBytes = 0
    package var holderResidentBytes = 0
    /// The live threads' stacks, the reading thread's included, resident (mincore).
    package var stackResidentBytes = 0
    /// What the allocator keeps after free, resident: its own memory's resident pages (mincore over
    /// jemalloc's mappings, or glibc's arenas) less the recorded blocks' resident pages in it and
    /// the small blocks' bytes. Without the exact heap, glibc's counters (an upper bound).
    package var allocatorKeptBytes = 0
    /// The anonymous mappings made through mmap() by code other than the allocator (the sampler's
    /// buffer, a library's own), resident (mincore).
    package var otherResidentBytes = 0
    /// False when a realloc moved a large block while it read (see `ResidencyProbe.snapshot`): its
    /// categories may miss the block's pages, or count them twice.
    package var consistent = true
    /// False when the live heap moved by more than 64 KiB while it read: a block freed between the
    /// allocator's reading and the heap's is in neither (the error is at most what moved).
    package var heapHeldStill = true

    package init() {}

    /// Each category's bytes over `baseline`'s; `unattributed` is left to the caller.
    package func deltas(over baseline: ResidencySnapshot) -> [ResidencyCategory: Int] {
        let base = baseline.categories
        return categories.reduce(into: [ResidencyCategory: Int]()) { $0[$1.key] = $1.value - (base[$1.key] ?? 0) }
    }

    /// Each category's bytes at this moment; `unattributed` is left to the caller (a difference of two moments).
    package var categories: [ResidencyCategory: Int] {
        [
            .heapHolders: holderResidentBytes, .smallHeapBlocks: heapLiveBytes - holderBytes,
            .allocatorFree: allocatorKeptBytes, .threadStacks: stackResidentBytes, .fileBacked: fileBytes,
            .otherAnonymous: otherResidentBytes,
        ]
    }
}

/// Takes residency snapshots in the measured child: statm, mincore over the recorded blocks, the
/// live threads' stacks, the allocator's own memory and the other anonymous mappings. Never walks
/// smaps, never allocates while it reads (safe on the sampler thread inside the window).
package final class ResidencyProbe: Sendable {
    private let memory: ProcessMemory
    private let heap: HeapCounters
    private let exactHeap: ExactHeapPeak?
    /// The main thread's stack (the only one not started through pthread_create), as the loader
    /// gives it: its whole possible extent, scanned from the top down to the first unmapped page.
    private let mainStack: (low: UInt, high: UInt)?
    private let allocatorMemory: AllocatorMemory

    /// Where a snapshot reads the allocator's own memory.
    private enum AllocatorMemory {
        /// jemalloc's mappings: those its library made (its loaded segments hold the caller).
        case jemallocMappings(low: UInt, high: UInt)
        /// glibc's arenas: the main one from the kernel's start_brk, the thread arenas' heaps as the
        /// wrappers see blocks in them.
        case glibcArenas(mainStart: UInt)
        /// glibc's counters, when the wrappers do not count (`BENCH_EXACT_HEAP=off`): an upper bound.
        case glibcCounters
    }

    package init(heap: HeapCounters, exactHeap: ExactHeapPeak?) throws {
        self.memory = try ProcessMemory()
        self.heap = heap
        self.exactHeap = exactHeap
        self.mainStack = Self.mainThreadStack()
        switch heap.allocator {
        case .system:
            if exactHeap != nil {
                allocatorMemory = .glibcArenas(mainStart: try ProcessMemory.programBreakStart())
            } else {
                allocatorMemory = .glibcCounters
            }
        case .jemalloc:
            var low: UInt = 0
            var high: UInt = 0
            guard heappeak_object_range("mallctl", &low, &high) != 0 else {
                throw ResidencyProbeError.allocatorLibraryNotFound
            }
            allocatorMemory = .jemallocMappings(low: low, high: high)
        }
    }

    /// The allocator whose counters the snapshots read.
    package var allocator: Allocator { heap.allocator }

    /// RSS now (statm), without the rest of a snapshot.
    package func residentBytes() -> Int { memory.residentBytes() }

    /// The recorded blocks' residency at the last snapshot taken with `keep` becomes what holders.csv
    /// reports: call it once that snapshot is known to be the one kept.
    package func keepHolderResidency() { heappeak_residency_keep() }

    /// Whether a realloc is moving a large block now.
    package var moveRunning: Bool {
        var begun: UInt64 = 0
        var running: UInt64 = 0
        heappeak_moves(&begun, &running)
        return running > 0
    }

    /// The exact heap's live bytes (0 when not counting).
    package func liveHeapBytes() -> Int {
        guard exactHeap != nil else { return 0 }
        var live: UInt64 = 0
        var peak: UInt64 = 0
        heappeak_read(&live, &peak)
        return Int(live)
    }

    /// How far the live heap may move while a snapshot's locked readings are taken: a small block
    /// freed between the reading of the allocator's memory and that of the live bytes is in neither.
    private static let heapStillBytes = 64 * 1024

    /// One reading of every category. `keep`: the recorded blocks hold their residency now, for
    /// `keepHolderResidency` to make it what holders.csv's `resident_bytes` reports: set for the
    /// snapshots that may be the RSS peak.
    ///
    /// The program goes on running while a snapshot reads (a thread copying a body fills pages at
    /// gigabytes a second): the slower readings (glibc's counters, the stacks, the other mappings)
    /// come first; the blocks, the live heap, the allocator's own memory and RSS then follow each
    /// other in one C call under the blocks' lock (`heappeak_residency_snapshot`), so that no large
    /// block comes or goes between them; Swift never holds that lock.
    ///
    /// Whether a large block's move inside realloc overlapped those locked readings (its pages are
    /// then where no count says), and whether the live heap held still (within 64 KiB) while they
    /// were taken, are in `consistent` and `heapHeldStill`: what to do with a torn one is the caller's.
    package func snapshot(keep: Bool) -> ResidencySnapshot {
        var snapshot = ResidencySnapshot()
        if case .glibcCounters = allocatorMemory { snapshot.allocatorKeptBytes = glibcKeptBytes() }
        snapshot.stackResidentBytes = stackResidentBytes()
        snapshot.otherResidentBytes = otherMappingsResidentBytes()
        var reading = heappeak_residency_reading()
        let (kind, low, high): (heappeak_allocator_memory, UInt, UInt) =
            switch allocatorMemory {
            case .jemallocMappings(let low, let high): (HEAPPEAK_ALLOCATOR_MEMORY_MAPPINGS, low, high)
            case .glibcArenas(let mainStart): (HEAPPEAK_ALLOCATOR_MEMORY_GLIBC_ARENAS, mainStart, 0)
            case .glibcCounters: (HEAPPEAK_ALLOCATOR_MEMORY_APART, 0, 0)
            }
        heappeak_residency_snapshot(keep ? 1 : 0, kind, low, high, memory.statmFileDescriptor, &reading)
        snapshot.holderBytes = Int(reading.holder_bytes)
        snapshot.holderResidentBytes = Int(reading.holder_resident)
        // The blocks being freed inside the release hook are in `live_heap` (still resident). Without
        // the exact heap the allocator's counters stand in, read just after the lock.
        snapshot.heapLiveBytes = exactHeap != nil ? Int(reading.live_heap) : heap.read().allocated
        if kind != HEAPPEAK_ALLOCATOR_MEMORY_APART {
            snapshot.allocatorKeptBytes =
                Int(reading.allocator_resident) - Int(reading.holder_resident_in_arenas)
                - (snapshot.heapLiveBytes - snapshot.holderBytes)
        }
        // Torn: a realloc moved a large block (its pages where no count says), or small blocks
        // came or went by more than 64 KiB, while the readings under the lock were taken.
        snapshot.consistent = reading.consistent != 0
        snapshot.heapHeldStill =
            exactHeap == nil || abs(Int(reading.live_after) - Int(reading.live_before)) <= Self.heapStillBytes
        snapshot.residentBytes = Int(reading.resident_bytes)
        snapshot.fileBytes = Int(reading.file_bytes)
        snapshot.time = MonotonicClock.now()
        return snapshot
    }

    /// The anonymous mappings made through mmap() by any code but the allocator's (the sampler's
    /// buffer, a library's own), resident.
    private func otherMappingsResidentBytes() -> Int {
        var (low, high): (UInt, UInt) = (0, 0)
        if case .jemallocMappings(let codeLow, let codeHigh) = allocatorMemory { (low, high) = (codeLow, codeHigh) }
        var mapped: UInt64 = 0
        var resident: UInt64 = 0
        _ = heappeak_mapped_resident(low, high, 0, &mapped, &resident)
        return Int(resident)
    }

    /// What glibc keeps after free by its counters: its free bytes, of its top chunk the resident
    /// pages (the top grows by the program break, untouched until used).
    private func glibcKeptBytes() -> Int {
        var bytes: UInt64 = 0
        var top: UInt = 0
        var topBytes: UInt64 = 0
        _ = heapstats_read_kept_glibc(&bytes, &top, &topBytes)
        return Int(bytes + heappeak_resident_range(top, topBytes))
    }

    private static let stackCapacity = 512

    private func stackResidentBytes() -> Int {
        var total = mainStack.map { Int(heappeak_resident_stack($0.low, $0.high)) } ?? 0
        withUnsafeTemporaryAllocation(of: threadguard_stack.self, capacity: Self.stackCapacity) { buffer in
            let count = min(threadguard_stacks(buffer.baseAddress, buffer.count, nil), buffer.count)
            for stack in buffer.prefix(count) where stack.high > stack.low {
                total += Int(heappeak_resident_stack(stack.low, stack.high))
            }
        }
        return total
    }

    /// The main thread's stack when the caller is the main thread (else nil: the caller's own
    /// thread was started through pthread_create and is in its table).
    private static func mainThreadStack() -> (low: UInt, high: UInt)? {
        var stack = threadguard_stack()
        guard threadguard_main_stack(&stack) != 0 else { return nil }
        return (stack.low, stack.high)
    }
}

package enum ResidencyProbeError: Error, CustomStringConvertible {
    /// jemalloc is the allocator but no loaded library defines its `mallctl`: its mappings
    /// cannot be told apart.
    case allocatorLibraryNotFound

    package var description: String {
        switch self {
        case .allocatorLibraryNotFound:
            "jemalloc is the allocator, but no loaded library defines mallctl: its mappings cannot be told apart"
        }
    }
}
