#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
@testable import Probe

/// Maps and touches `bytes` of anonymous memory, so RSS grows by that much; unmap with munmap.
private func touchedMapping(_ bytes: Int) -> UnsafeMutableRawPointer {
    let pointer = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
    memset(pointer, 1, bytes)
    return pointer
}

@Suite struct ProcessMemoryTests {
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
    @Test func systemAllocatorCountsMallocAndFree() throws {
        let heap = try HeapCounters(expecting: .system)
        let before = heap.read().allocated
        let size = 50_000_000
        let block = malloc(size)!
        let during = heap.read().allocated
        free(block)
        let after = heap.read().allocated
        #expect(during - before >= size)
        #expect(during - after >= size)
    }

    @Test func jemallocIsRefusedWhenNotLoaded() {
        // This test process runs on glibc's malloc: asking for jemalloc must fail loudly, not read zeros.
        #expect(throws: ProbeError.self) { try HeapCounters(expecting: .jemalloc) }
    }
}

@Suite struct MemorySamplerTests {
    @Test func samplerSeesAHeldAllocation() throws {
        let sampler = try MemorySampler(heap: HeapCounters(expecting: .system), intervalNanos: 500_000,
                                        maximumDurationSeconds: 10)
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

/// Two threads reading one ProcessMemory at once, as the trial's main thread (`sampleNow()` for
/// the baseline and final readings) and the sampler thread do. With one shared read buffer a
/// reading can be torn: one thread parses while the other's pread overwrites the bytes. A third
/// thread maps and unmaps an address-space reservation (PROT_NONE, no RSS) so the first field
/// of statm (the program's size in pages) changes its number of digits: a torn reading then
/// parses the resident field from the wrong offset and lands far outside sane bounds.
@Suite(.serialized) struct ConcurrentStatmTests {
    static let readsPerThread = 1_000_000

    final class Hammer: Sendable {
        let readersDone = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let togglerDone = Atomic<Bool>(false)
        let outOfBounds = Atomic<Int>(0)
        let lowest = Atomic<Int>(Int.max)
        let highest = Atomic<Int>(0)
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
        let lower = before / 2, upper = before * 2 + (256 << 20)

        Thread {
            while !hammer.stop.load(ordering: .acquiring) {
                let mapping = mmap(nil, reservation, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                if let mapping, mapping != MAP_FAILED { munmap(mapping, reservation) }
            }
            hammer.togglerDone.store(true, ordering: .releasing)
        }.start()
        for _ in 0..<2 {
            Thread {
                for _ in 0..<Self.readsPerThread {
                    let reading = memory.residentBytes()
                    if reading < lower || reading > upper { hammer.outOfBounds.add(1, ordering: .relaxed) }
                    hammer.lowest.min(reading, ordering: .relaxed)
                    hammer.highest.max(reading, ordering: .relaxed)
                }
                hammer.readersDone.add(1, ordering: .releasing)
            }.start()
        }
        while hammer.readersDone.load(ordering: .acquiring) < 2 { usleep(1_000) }
        hammer.stop.store(true, ordering: .releasing)
        while !hammer.togglerDone.load(ordering: .acquiring) { usleep(1_000) }

        let after = try #require(ProcessMemory.statusResidentBytes())
        #expect(abs(after - before) < 64 << 20, "the process itself moved by \(after - before) bytes: bounds would not hold")
        #expect(hammer.outOfBounds.load(ordering: .relaxed) == 0,
                "\(hammer.outOfBounds.load(ordering: .relaxed)) of \(2 * Self.readsPerThread) readings outside \(lower)...\(upper) (VmRSS \(before)); lowest \(hammer.lowest.load(ordering: .relaxed)), highest \(hammer.highest.load(ordering: .relaxed))")
    }
}
