import BenchCore
import CHeapPeak
import Foundation
import Probe
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// malloc whose block the optimizer cannot drop: a block that is only allocated and freed (all
/// a counter's test does with it) is otherwise removed from an optimized build, malloc and free alike.
private func keptMalloc(_ bytes: Int) -> UnsafeMutableRawPointer? {
    let block = malloc(bytes)
    lastKeptBlock.store(Int(bitPattern: block), ordering: .relaxed)
    return block
}
private let lastKeptBlock = Atomic<Int>(0)

/// One measure of the recorded blocks, under their lock as a snapshot takes it: their bytes, their
/// resident bytes and the live heap. `keep`: their residency is held for `heappeak_residency_keep`.
private func measureResidency(keep: Bool) -> (bytes: UInt64, resident: UInt64, live: UInt64) {
    var reading = heappeak_residency_reading()
    heappeak_residency_snapshot(keep ? 1 : 0, HEAPPEAK_ALLOCATOR_MEMORY_APART, 0, 0, -1, &reading)
    return (reading.holder_bytes, reading.holder_resident, reading.live_heap)
}

/// Maps and touches `bytes` of anonymous memory, so RSS grows by that much; unmap with munmap.
private func touchedMapping(_ bytes: Int) -> UnsafeMutableRawPointer {
    let pointer = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
    memset(pointer, 1, bytes)
    return pointer
}

/// Serialized: two of these map and unmap 64 MiB, and each reads the process's RSS around its own.
@Suite(.serialized) struct ProcessMemoryTests {
    @Test func statmAgreesWithStatus() throws {
        let memory = try ProcessMemory()
        let statm = memory.residentBytes()
        let status = try #require(ProcessMemory.statusResidentBytes())
        #expect(statm > 0)
        // Both read the same folded counters; allow for pages touched between the two reads.
        #expect(abs(statm - status) < 2_000_000)
    }

    @Test func rssFollowsTouchedMemory() throws {
        let memory = try ProcessMemory()
        let before = memory.residentBytes()
        let size = 64 << 20
        let mapping = touchedMapping(size)
        let during = memory.residentBytes()
        munmap(mapping, size)
        let after = memory.residentBytes()
        #expect(during - before >= size - (1 << 20))
        #expect(during - after >= size - (1 << 20))
    }

    @Test func highWaterMarkKeepsAFreedPeakUntilReset() throws {
        try ProcessMemory.resetPeakResident()
        let size = 64 << 20
        let mapping = touchedMapping(size)
        let current = try #require(ProcessMemory.statusResidentBytes())
        munmap(mapping, size)
        let peakAfterFree = try #require(ProcessMemory.peakResidentBytes())
        #expect(peakAfterFree >= current - (1 << 20), "VmHWM must remember the unmapped 64 MiB")

        try ProcessMemory.resetPeakResident()
        let peakAfterReset = try #require(ProcessMemory.peakResidentBytes())
        #expect(peakAfterReset < peakAfterFree - size / 2, "clear_refs 5 must bring VmHWM back to the current RSS")
    }
}

@Suite struct HeapCountersTests {
    /// The allocator's counter is the whole process's: the test framework's own threads allocate and
    /// free between two readings, by up to this much.
    static let otherThreads = 256 << 10

    /// glibc's counter rises by a 50 MB block while it is held and falls by it when it is freed.
    @Test func systemAllocatorCountsMallocAndFree() throws {
        let heap = try HeapCounters(expecting: .system)
        let before = heap.read().allocated
        let size = 50_000_000
        let block = keptMalloc(size)!
        let during = heap.read().allocated
        free(block)
        let after = heap.read().allocated
        #expect(abs(during - before - size) <= Self.otherThreads, "rose by \(during - before)")
        #expect(abs(during - after - size) <= Self.otherThreads, "fell by \(during - after)")
    }

    @Test func jemallocIsRefusedWhenNotLoaded() {
        // This test process runs on glibc's malloc: asking for jemalloc must fail loudly, not read zeros.
        #expect(throws: ProbeError.allocatorMismatch(requested: .jemalloc)) { try HeapCounters(expecting: .jemalloc) }
    }
}

@Suite struct MemorySamplerTests {
    @Test func samplerSeesAHeldAllocation() throws {
        let sampler = try MemorySampler(
            heap: HeapCounters(expecting: .system),
            intervalNanos: 500_000,
            maximumDurationSeconds: 10
        )
        try sampler.start()
        let start = sampler.sampleNow()
        let size = 40 << 20
        let mapping = touchedMapping(size)
        usleep(50_000)  // held for 50 ms: a hundred sampling intervals
        munmap(mapping, size)
        let end = sampler.sampleNow()
        let recording = sampler.stop()
        let statistics = recording.statistics(from: start.time, to: end.time)

        #expect(statistics.count > 0)
        #expect(statistics.maxResidentBytes - start.residentBytes >= size - (1 << 20))
        #expect(recording.samples.map(\.time) == recording.samples.map(\.time).sorted())
        #expect(recording.dropped == 0)
    }

    @Test func windowSelectsSamplesByTime() {
        let samples = (0..<10).map { MemorySample(time: UInt64($0) * 100, residentBytes: $0, allocatedBytes: 10 * $0) }
        let recording = SamplerRecording(samples: samples, dropped: 0, intervalNanos: 100)
        let statistics = recording.statistics(from: 250, to: 650)
        #expect(recording.window(from: 250, to: 650).map(\.residentBytes) == [3, 4, 5, 6])
        #expect(statistics.maxResidentBytes == 6)
        #expect(statistics.maxAllocatedBytes == 60)
        #expect(statistics.maxGapNanos == 100)
    }
}

/// A window's readings put residency.csv's rows and trials.csv's peak RSS delta over one baseline:
/// the RSS peak's rows add up to at most the peak RSS delta, even when the kernel's approximate
/// per-CPU RSS counters make a snapshot's own reading the highest of the window.
@Suite struct WindowReadingsTests {
    static func readings(sampledPeak: Int, hwm: Int, snapshotResident: Int) -> WindowReadings {
        let baseline = MemorySample(time: 0, residentBytes: 10_000_000, allocatedBytes: 0)
        let samples = [baseline, MemorySample(time: 100, residentBytes: sampledPeak, allocatedBytes: 0)]
        let recording = SamplerRecording(samples: samples, dropped: 0, intervalNanos: 100)
        var baselineSnapshot = ResidencySnapshot()
        baselineSnapshot.residentBytes = 10_065_536  // the same moment, read a few pages apart
        var peak = ResidencySnapshot()
        peak.residentBytes = snapshotResident
        peak.heapLiveBytes = 1_000_000
        var readings = WindowReadings(
            baseline: baseline,
            final: samples[1],
            exactBaseline: nil,
            exactPeak: nil,
            hwmPeakResidentBytes: hwm,
            recording: recording,
            statistics: recording.statistics(from: 0, to: 100),
            settleNanos: 0,
            lastMovementNanos: 0
        )
        readings.residency = ResidencyReadings(
            baselineResidentBytes: baseline.residentBytes,
            baseline: baselineSnapshot,
            peak: peak,
            end: baselineSnapshot,
            snapshots: 2,
            nanos: 0,
            releaseNanos: 0
        )
        return readings
    }

    @Test func aSnapshotReadAboveTheSamplesRaisesThePeak() {
        let readings = Self.readings(sampledPeak: 36_000_000, hwm: 36_000_000, snapshotResident: 36_065_536)
        #expect(readings.peakResidentBytes == 36_065_536)
    }

    @Test func thePeaksRowsAddUpToThePeakDeltaOverTheWindowsBaseline() throws {
        let readings = Self.readings(sampledPeak: 36_000_000, hwm: 35_000_000, snapshotResident: 35_900_000)
        let rows = try #require(readings.residency?.rows).filter { $0.moment == .rssPeak }
        let sum = rows.reduce(0) { $0 + $1.bytes }
        #expect(sum == 35_900_000 - readings.baseline.residentBytes)
        #expect(sum <= readings.peakResidentBytes - readings.baseline.residentBytes)
    }
}

/// Two threads reading one ProcessMemory at once, as the trial's main thread (`sampleNow()` for
/// the baseline and final readings) and the sampler thread do. With one shared read buffer a
/// reading can be torn: one thread parses while the other's pread overwrites the bytes. A third
/// thread maps and unmaps an address-space reservation (PROT_NONE, no RSS) so the first field
/// of statm (the program's size in pages) changes its number of digits: a torn reading then
/// parses the resident field from the wrong offset and lands far outside sane bounds.
@Suite(.serialized) struct ConcurrentStatmTests {
    static let readsPerThread = 1_000_000

    final class Hammer: Sendable {
        let stop = Atomic<Bool>(false)
        let outOfBounds = Atomic<Int>(0)
        let lowest = Atomic<Int>(Int.max)
        let highest = Atomic<Int>(0)
    }

    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a thread that runs `body`; the caller joins it.
    static func spawn(_ body: @escaping @Sendable () -> Void) throws -> pthread_t {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var handle = pthread_t()
        let status = pthread_create(
            &handle,
            nil,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            },
            context
        )
        if status != 0 { Unmanaged<Body>.fromOpaque(context).release() }
        try #require(status == 0, "pthread_create: \(status)")
        return handle
    }

    /// Pages of address space to reserve so that statm's first field gains a digit.
    static func reservationPages() throws -> Int {
        let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, 127) }
        try #require(count > 0)
        let size = try #require(Int(String(decoding: bytes[..<count], as: UTF8.self).split(separator: " ")[0]))
        var power = 10
        while power <= size { power *= 10 }
        return power - size + power / 10  // past the next power of ten, with room for the process to move
    }

    @Test func twoReadersAtOnceNeverTear() throws {
        let memory = try ProcessMemory()
        let before = try #require(ProcessMemory.statusResidentBytes())
        let reservation = try Self.reservationPages() * ProcessMemory.pageSize
        let hammer = Hammer()
        let lower = before / 2
        let upper = before * 2 + (256 << 20)

        let toggler = try Self.spawn {
            while !hammer.stop.load(ordering: .acquiring) {
                let mapping = mmap(nil, reservation, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                if let mapping, mapping != MAP_FAILED { munmap(mapping, reservation) }
            }
        }
        let readers = try (0..<2).map { _ in
            try Self.spawn {
                for _ in 0..<Self.readsPerThread {
                    let reading = memory.residentBytes()
                    if reading < lower || reading > upper { hammer.outOfBounds.add(1, ordering: .relaxed) }
                    hammer.lowest.min(reading, ordering: .relaxed)
                    hammer.highest.max(reading, ordering: .relaxed)
                }
            }
        }
        // Joined, not just signalled: nothing of these threads may outlive the test.
        for reader in readers { pthread_join(reader, nil) }
        hammer.stop.store(true, ordering: .releasing)
        pthread_join(toggler, nil)

        let after = try #require(ProcessMemory.statusResidentBytes())
        #expect(
            abs(after - before) < 64 << 20,
            "the process itself moved by \(after - before) bytes: bounds would not hold"
        )
        #expect(
            hammer.outOfBounds.load(ordering: .relaxed) == 0,
            "\(hammer.outOfBounds.load(ordering: .relaxed)) of \(2 * Self.readsPerThread) readings outside \(lower)...\(upper) (VmRSS \(before)); lowest \(hammer.lowest.load(ordering: .relaxed)), highest \(hammer.highest.load(ordering: .relaxed))"
        )
    }
}

/// The exact heap counter of this very process: the test runner links Probe, so the allocation
/// wrappers (CHeapPeak) are its malloc and friends, in front of glibc's. Serialized, and the
/// suite runs with `swift test --no-parallel`: another test allocating at the same time would
/// move the counter, and the runtime's own threads (a test before this one finishing its
/// clean-up) still do, a little: the slack below, both ways. What the tests catch is whole
/// blocks, megabytes: an allocation not counted, a free not released, a remap counted as a copy.
@Suite(.serialized) struct ExactHeapPeakTests {
    static let size = 8 << 20
    static let slack = 256 << 10

    /// posix_memalign, aligned_alloc and valloc are counted when they allocate (the usable size,
    /// at least what was asked and at most the alignment more) and released by free.
    @Test(arguments: ["posix_memalign", "aligned_alloc", "valloc"])
    func alignedAllocationsAreCountedAndReleased(function: String) throws {
        let exact = try #require(ExactHeapPeak(), "the allocation wrappers are not counting in this process")
        let alignment = function == "posix_memalign" ? 64 << 10 : ProcessMemory.pageSize
        let before = exact.read().live
        var block: UnsafeMutableRawPointer?
        switch function {
        case "posix_memalign": #expect(posix_memalign(&block, alignment, Self.size) == 0)
        case "aligned_alloc": block = aligned_alloc(alignment, Self.size)
        default: block = valloc(Self.size)
        }
        let pointer = try #require(block)
        let during = exact.read().live
        free(pointer)
        let after = exact.read().live
        #expect(Int(bitPattern: pointer) % alignment == 0)
        #expect(
            during - before >= Self.size - Self.slack,
            "\(function): counted \(during - before) for \(Self.size) bytes"
        )
        #expect(during - before <= Self.size + alignment + Self.slack, "\(function): counted \(during - before)")
        #expect(during - after >= Self.size - Self.slack, "\(function): free released \(during - after)")
        #expect(during - after <= Self.size + alignment + Self.slack, "\(function): free released \(during - after)")
    }

    /// glibc moves a large (mmapped) chunk with mremap: the pages are remapped, not copied, and
    /// the old and new blocks are never live together. The peak over the old block must be the
    /// growth alone, not the whole new block (which counting it as a copy would give).
    @Test func remappedReallocIsNotCountedAsACopy() throws {
        let exact = try #require(ExactHeapPeak(), "the allocation wrappers are not counting in this process")
        let old = 64 << 20
        let new = 128 << 20  // above glibc's largest mmap threshold (32 MiB): always mmapped
        let block = try #require(keptMalloc(old))
        // glibc's chunk header: the size word before the block; bit 1 says mmapped.
        let header = block.load(fromByteOffset: -MemoryLayout<Int>.size, as: UInt.self)
        try #require(header & 2 != 0, "a \(old)-byte block is not an mmapped chunk")
        // Occupy the page after the chunk so that mremap cannot grow it in place: it must move.
        let end = block - 2 * MemoryLayout<Int>.size + Int(header & ~7)
        let guardPage = mmap(
            end,
            ProcessMemory.pageSize,
            PROT_NONE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
            -1,
            0
        )
        defer {
            if let guardPage, guardPage != MAP_FAILED, guardPage == end { munmap(guardPage, ProcessMemory.pageSize) }
        }
        let baseline = exact.reset()
        let grown = try #require(realloc(block, new))
        let peak = exact.read().peak
        free(grown)
        try #require(grown != block, "mremap grew the block in place: the case is not exercised")
        let growth = peak - baseline
        #expect(growth >= new - old - Self.slack, "peak over the old block \(growth), growth \(new - old)")
        #expect(growth <= new - old + Self.slack, "peak over the old block \(growth): counted as a copy (\(new))?")
    }
}

/// The release hook (`heappeak_set_release_hook`) set and cleared on one thread while another
/// frees large blocks, as a measured window's end does while a framework thread frees its
/// buffers: the hook is never called without its context.
@Suite(.serialized) struct ReleaseHookTests {
    static let callsWithoutContext = Atomic<Int>(0)
    static let calls = Atomic<Int>(0)

    @Test func aHookClearedWhileAThreadFreesIsNeverCalledWithoutItsContext() throws {
        let stop = Atomic<Bool>(false)
        let setting = Atomic<Bool>(false)
        let setter = try ConcurrentStatmTests.spawn {
            while !stop.load(ordering: .acquiring) {
                setting.store(true, ordering: .releasing)
                heappeak_set_release_hook(
                    { context in
                        ReleaseHookTests.calls.add(1, ordering: .relaxed)
                        if context == nil { ReleaseHookTests.callsWithoutContext.add(1, ordering: .relaxed) }
                    },
                    UnsafeMutableRawPointer(bitPattern: 0x1000),  // never dereferenced
                    1 << 20,
                    0
                )
                heappeak_set_release_hook(nil, nil, 0, 0)
            }
        }
        // Frees while the setter runs (on a loaded machine it may start late), until the hook has
        // been called a few times or a bounded number of frees.
        let freer = try ConcurrentStatmTests.spawn {
            while !setting.load(ordering: .acquiring) { sched_yield() }
            for round in 0..<2_000_000 where round < 200_000 || ReleaseHookTests.calls.load(ordering: .relaxed) < 10 {
                free(keptMalloc(2 << 20))
            }
        }
        pthread_join(freer, nil)
        stop.store(true, ordering: .releasing)
        pthread_join(setter, nil)
        heappeak_set_release_hook(nil, nil, 0, 0)
        #expect(Self.calls.load(ordering: .relaxed) > 0, "the hook was called at all")
        #expect(Self.callsWithoutContext.load(ordering: .relaxed) == 0)
    }

    static let inHook = Mutex<(live: UInt64, releasing: UInt64)?>(nil)

    /// A residency snapshot in the hook takes milliseconds; a thread that allocates meanwhile must
    /// not find the block being freed still in the live bytes, or the heap peak would count both
    /// (a measurement raising what it measures). In the hook the block is out of the live bytes,
    /// and `heappeak_releasing_bytes` says how large it is.
    @Test func theBlockBeingFreedHasLeftTheLiveBytesWhenTheHookRuns() throws {
        let exact = try #require(ExactHeapPeak(), "the allocation wrappers are not counting in this process")
        let size = 4 << 20
        let block = try #require(keptMalloc(size))
        heappeak_set_release_hook(
            { _ in
                // Another thread's allocation during a snapshot: 4 MiB more, freed again.
                free(keptMalloc(4 << 20))
                var live: UInt64 = 0
                var peak: UInt64 = 0
                heappeak_read(&live, &peak)
                ReleaseHookTests.inHook.withLock { $0 = (live, heappeak_releasing_bytes()) }
            },
            UnsafeMutableRawPointer(bitPattern: 0x1000),  // never dereferenced
            UInt64(size),
            0
        )
        let baseline = exact.reset()
        var before: UInt64 = 0
        var unused: UInt64 = 0
        heappeak_read(&before, &unused)
        free(block)
        heappeak_set_release_hook(nil, nil, 0, 0)
        let peak = exact.read().peak
        let seen = try #require(Self.inHook.withLock { $0 }, "the hook was not called")
        // The allocator's usable size: the request, rounded up by at most a page or so.
        #expect(seen.releasing >= UInt64(size) && seen.releasing <= UInt64(size + Self.slack))
        // In the hook the live bytes are the block's fewer than before the free (the hook's own
        // allocation already freed again), within what other threads may hold meanwhile.
        let left = Int(before) - Int(seen.live)
        #expect(abs(left - Int(seen.releasing)) <= Self.slack, "live fell by \(left), the block is \(seen.releasing)")
        // The peak holds the block or the hook's allocation, never both.
        #expect(peak - baseline <= Self.slack, "peak over the baseline \(peak - baseline)")
        #expect(heappeak_releasing_bytes() == 0, "outside the hook")
    }

    static let otherThreadSaw = Mutex<(resident: UInt64, live: UInt64)?>(nil)

    /// A snapshot on another thread (the sampler's) while a block is freed inside the hook finds
    /// that block still resident and counts it, in the holders' bytes and in the live heap: the
    /// RSS it reads holds the block, so leaving it out would leave it unexplained.
    @Test func aSnapshotOnAnotherThreadCountsTheBlockBeingFreed() throws {
        _ = try #require(ExactHeapPeak(), "the allocation wrappers are not counting in this process")
        let size = 4 << 20
        let block = try #require(keptMalloc(size))
        memset(block, 1, size)  // every page resident
        heappeak_set_release_hook(
            { _ in
                guard
                    let other = try? ConcurrentStatmTests.spawn({
                        let measured = measureResidency(keep: false)
                        ReleaseHookTests.otherThreadSaw.withLock { $0 = (measured.resident, measured.live) }
                    })
                else { return }
                pthread_join(other, nil)
            },
            UnsafeMutableRawPointer(bitPattern: 0x1000),  // never dereferenced
            UInt64(size),
            0
        )
        let (_, resident, live) = measureResidency(keep: false)
        free(block)
        heappeak_set_release_hook(nil, nil, 0, 0)
        let seen = try #require(Self.otherThreadSaw.withLock { $0 }, "the hook was not called")
        let residentRise = Int(seen.resident) - Int(resident)
        #expect(residentRise >= size && residentRise <= size + Self.slack, "resident rose by \(residentRise)")
        #expect(abs(Int(seen.live) - Int(live)) <= Self.slack, "live heap \(live) before, \(seen.live) in the hook")
    }

    static let slack = 256 << 10
}

/// holders.csv's `resident_bytes` is each block's residency at the snapshot kept as the RSS peak:
/// a snapshot measured for keeping leaves it as it was until it is kept, and a later one that is
/// not kept does not change it.
@Suite(.serialized) struct KeptResidencyTests {
    /// Only blocks this large are recorded while the test runs: none of the other suites' blocks.
    static let threshold = 64 << 20
    static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

    static func residentBytes(ofBlockOf bytes: Int) throws -> Int {
        var blocks = [heappeak_block](repeating: heappeak_block(), count: 64)
        var dropped: UInt64 = 0
        let count = min(heappeak_holders_at_peak(&blocks, blocks.count, &dropped), blocks.count)
        let block = try #require(
            blocks.prefix(count).first { Int($0.bytes) >= bytes && Int($0.bytes) < bytes + 2 * page }
        )
        return Int(block.resident_bytes)
    }

    /// The holder table keeps the blocks live now and those live at the peak, nothing else: however
    /// many large blocks come and go after the peak, a table of 8 records drops none of them and still
    /// names the block that made the peak.
    @Test func blocksThatComeAndGoAfterThePeakTakeNoRoom() throws {
        heappeak_holders_start(UInt64(Self.threshold), 8)
        defer { heappeak_holders_start(0, 0) }
        var droppedBefore: UInt64 = 0
        _ = heappeak_holders_at_peak(nil, 0, &droppedBefore)
        let peakBytes = 16 * Self.threshold  // 1 GiB of address space, never touched
        heappeak_reset()
        free(try #require(keptMalloc(peakBytes)))
        for _ in 0..<32 { free(try #require(keptMalloc(Self.threshold + 4096))) }
        var blocks = [heappeak_block](repeating: heappeak_block(), count: 64)
        var dropped: UInt64 = 0
        let count = min(heappeak_holders_at_peak(&blocks, blocks.count, &dropped), blocks.count)
        #expect(dropped == droppedBefore, "dropped \(dropped - droppedBefore) blocks that came after the peak")
        let atPeak = blocks.prefix(count).filter {
            Int($0.bytes) >= peakBytes && Int($0.bytes) < peakBytes + 2 * Self.page
        }
        #expect(atPeak.count == 1, "the peak's block named \(atPeak.count) times")
    }

    @Test func aBlocksResidencyIsTheKeptSnapshots() throws {
        heappeak_holders_start(UInt64(Self.threshold), 0)
        defer { heappeak_holders_start(0, 0) }
        let bytes = Self.threshold + 12345
        let block = try #require(keptMalloc(bytes))
        defer { free(block) }
        heappeak_reset()  // the block is live at the peak: one of its holders
        memset(block, 1, 4 * Self.page)
        _ = measureResidency(keep: true)
        #expect(try Self.residentBytes(ofBlockOf: bytes) == 0, "measured, not kept yet")
        heappeak_residency_keep()
        let kept = try Self.residentBytes(ofBlockOf: bytes)
        #expect(kept >= 4 * Self.page && kept <= 5 * Self.page, "kept: \(kept)")
        memset(block, 1, 16 * Self.page)
        _ = measureResidency(keep: true)
        #expect(try Self.residentBytes(ofBlockOf: bytes) == kept, "a later snapshot, not kept")
    }
}
