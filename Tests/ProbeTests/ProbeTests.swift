#if canImport(Glibc)
import Glibc
#endif
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
