import BenchCore
import CThreadGuard
import Foundation
import Probe
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child whose resident memory is known, to check the residency snapshot against the kernel's
/// own accounts read at the same moment (`bench _residency-check`, run by the tests): it allocates
/// large blocks and touches a known share of each, maps a file and reads it, maps anonymous memory
/// of its own and writes half, starts threads that touch a known part of their stacks, and frees
/// blocks that the allocator keeps (some written only in part).
package enum ResidencyKnownAnswer {
    /// The large blocks (recorded as holders) and the share of each that is touched.
    package static let blocks: [(bytes: Int, touched: Double)] = [(8 << 20, 0.5), (4 << 20, 0.25), (2 << 20, 1)]
    /// Blocks never touched that span new address space past a GiB boundary: allocated, not
    /// resident. Under jemalloc they are allocated until its page map has grown a leaf (2 MiB,
    /// written only at each block's first and last pages), at most `maximumSpans`.
    package static let spanBytes = 3 << 29
    package static let maximumSpans = 8
    /// A leaf of jemalloc's page map: 2^18 entries of 8 bytes, one for each page of a GiB of
    /// address space (48-bit addresses, 4 KiB pages), allocated from arena 0's metadata.
    package static let pageMapLeafBytes = 1 << 21
    package static let fileBytes = 4 << 20
    /// An anonymous mapping of the child's own (as a library might make), of which half is written
    /// after the baseline: other anonymous memory.
    package static let ownMappingBytes = 4 << 20
    /// Every byte of the file.
    static let fileByte: UInt8 = 7
    package static let threads = 3
    package static let stackTouchedBytes = 256 << 10
    /// Blocks under glibc's mmap threshold and the holders' threshold, freed behind a kept one.
    package static let freedBlocks = 64
    package static let freedBlockBytes = 64 << 10
    /// Blocks of which only a quarter is ever written, freed behind a kept one: the allocator keeps
    /// their pages (and its counters count them whole); what is resident of them is the quarter.
    /// Under glibc's mmap threshold, so that glibc keeps them in its arena too.
    package static let partlyWrittenBlocks = 32
    package static let partlyWrittenBlockBytes = 96 << 10
    /// Small blocks, every other one freed: the allocator keeps the freed ones among live ones
    /// (jemalloc in its slabs and its threads' caches, glibc in its bins).
    package static let scatteredBlocks = 2048
    package static let scatteredBlockBytes = 1 << 10
    static let holderThreshold = 1 << 20

    /// What the child read: its snapshot's rows, and the kernel's accounts at the same moment.
    package struct Report: Codable, Sendable {
        package var allocator: Allocator
        /// The snapshot's categories, each a delta over the baseline, `unattributed` last.
        package var rows: [ResidencyRow]
        /// The snapshot's RSS delta, and its anonymous part (RSS less statm's shared field).
        package var rssDeltaBytes: Int
        package var anonymousDeltaBytes: Int
        /// /proc/self/smaps_rollup's Rss and Anonymous, deltas over the baseline (read right after each snapshot).
        package var smapsRSSDeltaBytes: Int
        package var smapsAnonymousDeltaBytes: Int
        /// The large blocks' resident bytes by /proc/self/pagemap (present pages), an independent reading.
        package var pagemapBlockResidentBytes: Int
        /// The bytes touched: in the large blocks, in the file, on the threads' stacks, in the freed blocks.
        package var touchedBlockBytes: Int
        package var touchedFileBytes: Int
        package var touchedOwnMappingBytes: Int
        package var touchedStackBytes: Int
        package var freedBytes: Int
        /// A measured window opened and closed with no work between, as a trial opens it: its peak
        /// RSS over its baseline is what the measurement itself adds.
        package var emptyWindowRiseBytes: Int
        /// While another thread allocated and freed a recorded block over and over, the largest
        /// less the smallest of the snapshots' small heap blocks (live heap less recorded blocks),
        /// the widest of `churnRounds` rounds.
        package var churnSmallHeapRangeBytes: Int
        /// jemalloc's page map leaves the spans made it allocate (0 under glibc).
        package var pageMapLeafBytes: Int
    }

    package static func run(allocator: Allocator) throws -> Report {
        let heap = try HeapCounters(expecting: allocator)
        let exactHeap = ExactHeapPeak()
        PeakBlocks.start(thresholdBytes: holderThreshold)
        let emptyWindowRise = try emptyWindowRise(heap: heap, exactHeap: exactHeap)
        let probe = try ResidencyProbe(heap: heap, exactHeap: exactHeap)
        let page = ProcessMemory.pageSize

        // Everything that reads or reports is set up before the baseline.
        let file = try mappedFile()
        defer { munmap(file, fileBytes) }
        guard let ownMapping = mmap(nil, ownMappingBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            ownMapping != MAP_FAILED
        else { throw CheckError("mmap(\(ownMappingBytes)) failed") }
        defer { munmap(ownMapping, ownMappingBytes) }
        let gate = ThreadGate(threads: threads)
        var reportText = ""
        reportText.reserveCapacity(4096)
        _ = try smapsRollup()
        try rehearse(allocator: allocator)
        // jemalloc's dirty pages from the start-up would be reused by the blocks below, resident
        // before they are touched: returned to the kernel first, so that what is resident is known.
        heap.returnFreedPages()

        let baseline = probe.snapshot(keep: false)
        let baselineMetadata = heap.firstArenaMetadataBytes()
        // The whole leaves arena 0's metadata grew by since the baseline.
        let leafBytes = { (heap.firstArenaMetadataBytes() - baselineMetadata) / pageMapLeafBytes * pageMapLeafBytes }
        let smapsBaseline = try smapsRollup()

        var large: [UnsafeMutableRawPointer] = []
        large.reserveCapacity(blocks.count)
        var touched = 0
        for block in blocks {
            guard let pointer = malloc(block.bytes) else { throw CheckError("malloc(\(block.bytes)) failed") }
            let share = Int(Double(block.bytes) * block.touched) / page * page
            memset(pointer, 1, share)
            touched += share
            large.append(pointer)
        }
        memset(ownMapping, 5, ownMappingBytes / 2)
        // A byte a page, each checked: a read whose value is unused may be optimized away.
        var sum = 0
        for offset in stride(from: 0, to: fileBytes, by: page) {
            sum &+= Int(file.load(fromByteOffset: offset, as: UInt8.self))
        }
        guard sum == Int(Self.fileByte) * (fileBytes / page) else {
            throw CheckError("the mapped file read \(sum), not \(Self.fileByte) a page")
        }
        var spans: [UnsafeMutableRawPointer] = []
        spans.reserveCapacity(maximumSpans)
        repeat {
            guard let span = malloc(spanBytes) else { throw CheckError("malloc(\(spanBytes)) failed") }
            spans.append(span)
        } while allocator == .jemalloc && spans.count < maximumSpans
            && leafBytes() == 0
        let threadHandles = try gate.start(touching: stackTouchedBytes)
        var freed: [UnsafeMutableRawPointer] = []
        for _ in 0..<freedBlocks {
            guard let pointer = malloc(freedBlockBytes) else { throw CheckError("malloc(\(freedBlockBytes)) failed") }
            memset(pointer, 2, freedBlockBytes)
            freed.append(pointer)
        }
        var partlyWritten: [UnsafeMutableRawPointer] = []
        for _ in 0..<partlyWrittenBlocks {
            guard let pointer = malloc(partlyWrittenBlockBytes) else {
                throw CheckError("malloc(\(partlyWrittenBlockBytes)) failed")
            }
            memset(pointer, 4, partlyWrittenBlockBytes / 4)
            partlyWritten.append(pointer)
        }
        var scattered: [UnsafeMutableRawPointer] = []
        scattered.reserveCapacity(scatteredBlocks)
        for _ in 0..<scatteredBlocks {
            guard let pointer = malloc(scatteredBlockBytes) else {
                throw CheckError("malloc(\(scatteredBlockBytes)) failed")
            }
            memset(pointer, 3, scatteredBlockBytes)
            scattered.append(pointer)
        }
        let kept = malloc(64)  // after the freed blocks: they do not end the arena, which keeps them
        for pointer in freed { free(pointer) }
        for pointer in partlyWritten { free(pointer) }
        for index in stride(from: 1, to: scatteredBlocks, by: 2) { free(scattered[index]) }

        let snapshot = probe.snapshot(keep: true)
        let smaps = try smapsRollup()
        let pagemap = try pagemapResident(large.enumerated().map { ($0.element, blocks[$0.offset].bytes) })
        gate.release()
        for handle in threadHandles { pthread_join(handle, nil) }
        for pointer in large { free(pointer) }
        for span in spans { free(span) }
        free(kept)
        for index in stride(from: 0, to: scatteredBlocks, by: 2) { free(scattered[index]) }
        let churnRange = (0..<churnRounds).map { _ in churnSmallHeapRange(probe: probe) }.max() ?? 0

        let deltas = snapshot.deltas(over: baseline)
        let rssDelta = snapshot.residentBytes - baseline.residentBytes
        return Report(
            allocator: allocator,
            rows: ResidencyRow.rows(moment: .rssPeak, rssDelta: rssDelta, deltas: deltas),
            rssDeltaBytes: rssDelta,
            anonymousDeltaBytes: rssDelta - (snapshot.fileBytes - baseline.fileBytes),
            smapsRSSDeltaBytes: smaps.rss - smapsBaseline.rss,
            smapsAnonymousDeltaBytes: smaps.anonymous - smapsBaseline.anonymous,
            pagemapBlockResidentBytes: pagemap,
            touchedBlockBytes: touched,
            touchedFileBytes: fileBytes,
            touchedOwnMappingBytes: ownMappingBytes / 2,
            touchedStackBytes: threads * stackTouchedBytes,
            freedBytes: freedBlocks * freedBlockBytes + scatteredBlocks / 2 * scatteredBlockBytes
                + partlyWritten.count * partlyWrittenBlockBytes / 4,
            emptyWindowRiseBytes: emptyWindowRise,
            churnSmallHeapRangeBytes: churnRange,
            pageMapLeafBytes: leafBytes()
        )
    }

    /// Opens a measured window as a trial does (a new probe, the sampler taking snapshots), closes
    /// it at once, and returns its peak RSS less its baseline.
    static func emptyWindowRise(heap: HeapCounters, exactHeap: ExactHeapPeak?) throws -> Int {
        let window = try MeasurementWindow(
            heap: heap,
            exactHeap: exactHeap,
            intervalNanos: 500_000,
            maximumDurationSeconds: 5,
            residency: try ResidencyProbe(heap: heap, exactHeap: exactHeap)
        )
        let readings = window.close(workEnded: MonotonicClock.now(), settle: .fixed(nanos: 20_000_000))
        return readings.peakResidentBytes - readings.baseline.residentBytes
    }

    /// Does once, before the baseline, what makes the allocator grow its own bookkeeping (counted
    /// whole though touched only in part), so that what changes after the baseline is what the
    /// child does. Its threads: glibc gives a thread an arena at its first `malloc` (the Swift
    /// runtime's), whose untouched top (about 130 KiB) counts as free bytes, and jemalloc may give it a
    /// new arena, which maps new address space; an exited thread's arena goes to the next thread.
    /// jemalloc's blocks: a freed block's addresses are reused for the next block of its size, so
    /// its bookkeeping for them (page map entries, extent records) is in place before the baseline.
    /// (glibc's blocks are not rehearsed: freeing a mapped block raises its mmap threshold, and the
    /// next block of that size would come from the arena instead.)
    static func rehearse(allocator: Allocator) throws {
        let gate = ThreadGate(threads: threads)
        let handles = try gate.start(touching: 0)
        gate.release()
        for handle in handles { pthread_join(handle, nil) }
        guard allocator == .jemalloc else { return }
        let sizes = blocks.map(\.bytes) + Array(repeating: freedBlockBytes, count: freedBlocks)
        let pointers = sizes.map { malloc($0) }
        for pointer in pointers { free(pointer) }
        guard !pointers.contains(nil) else { throw CheckError("malloc failed") }
    }

    /// Takes snapshots while another thread allocates and frees a recorded block of
    /// `churnBlockBytes` `churnBlocks` times, and returns how far their small heap blocks spread. Read
    /// apart, the live heap and the recorded blocks can disagree by the block; read together, not.
    static func churnSmallHeapRange(probe: ResidencyProbe) -> Int {
        final class Churn: Sendable {
            let started = Atomic<Bool>(false)
            let stop = Atomic<Bool>(false)
            let stopped = Atomic<Bool>(false)
            /// Each block's address, published so that its malloc and free cannot be optimized away.
            let block = Atomic<Int>(0)
        }
        let churn = Churn()
        let thread = Thread {
            // Churns once the snapshots have begun: they go on until it has done, and there is always one.
            while !churn.started.load(ordering: .acquiring) { sched_yield() }
            for _ in 0..<churnBlocks where !churn.stop.load(ordering: .relaxed) {
                let block = malloc(churnBlockBytes)
                churn.block.store(Int(bitPattern: block), ordering: .relaxed)
                free(block)
            }
            churn.stopped.store(true, ordering: .releasing)
        }
        thread.start()
        var smallest = Int.max
        var largest = Int.min
        var taken = 0
        repeat {
            let snapshot = probe.snapshot(keep: false)
            churn.started.store(true, ordering: .releasing)
            smallest = min(smallest, snapshot.heapLiveBytes - snapshot.holderBytes)
            largest = max(largest, snapshot.heapLiveBytes - snapshot.holderBytes)
            taken += 1
        } while taken < churnSnapshots && !churn.stopped.load(ordering: .acquiring)
        churn.stop.store(true, ordering: .relaxed)
        while !churn.stopped.load(ordering: .acquiring) { sched_yield() }
        return largest - smallest
    }

    package static let churnBlockBytes = 1 << 20
    /// In all, fewer than the holders' table holds: each block stays recorded (freed after the peak).
    static let churnBlocks = 1000
    static let churnRounds = 3
    static let churnSnapshots = 10_000

    struct CheckError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A new temporary file of `fileBytes`, mapped read-only and unlinked (its pages are in the
    /// page cache from the write; mapping them in is what counts).
    static func mappedFile() throws -> UnsafeMutableRawPointer {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-residency-\(getpid())").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CheckError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer {
            close(descriptor)
            unlink(path)
        }
        let bytes = [UInt8](repeating: Self.fileByte, count: fileBytes)
        guard write(descriptor, bytes, bytes.count) == bytes.count else { throw CheckError("cannot write \(path)") }
        guard let mapping = mmap(nil, fileBytes, PROT_READ, MAP_PRIVATE, descriptor, 0), mapping != MAP_FAILED else {
            throw CheckError("cannot map \(path): \(String(cString: strerror(errno)))")
        }
        return mapping
    }

    /// Rss and Anonymous of /proc/self/smaps_rollup, in bytes.
    static func smapsRollup() throws -> (rss: Int, anonymous: Int) {
        let text = try String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .utf8)
        func field(_ name: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }.map { $0 * 1024 }
        }
        guard let rss = field("Rss"), let anonymous = field("Anonymous") else {
            throw CheckError("/proc/self/smaps_rollup has no Rss or Anonymous line")
        }
        return (rss, anonymous)
    }

    /// Bytes of the given ranges in pages that /proc/self/pagemap says are present (whole pages).
    static func pagemapResident(_ ranges: [(UnsafeMutableRawPointer, Int)]) throws -> Int {
        let descriptor = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CheckError("cannot open /proc/self/pagemap") }
        defer { close(descriptor) }
        let page = UInt(ProcessMemory.pageSize)
        var total = 0
        for (pointer, bytes) in ranges {
            let start = UInt(bitPattern: pointer)
            let end = start + UInt(bytes)
            var address = start & ~(page - 1)
            while address < end {
                var entry: UInt64 = 0
                guard pread(descriptor, &entry, 8, off_t(address / page * 8)) == 8 else {
                    throw CheckError("cannot read pagemap")
                }
                if entry & (1 << 63) != 0 { total += Int(min(end, address + page) - max(start, address)) }
                address += page
            }
        }
        return total
    }
}

/// Threads that each touch a part of their stack, then wait until released. They wait by short
/// sleeps on atomics: no lock, no allocation, a few hundred bytes of stack below the touched part.
final class ThreadGate: Sendable {
    private let threads: Int
    private let ready = Atomic<Int>(0)
    private let released = Atomic<Bool>(false)
    private let touching = Atomic<Int>(0)

    init(threads: Int) {
        self.threads = threads
    }

    /// Starts the threads; returns once each has touched `bytes` of its stack.
    func start(touching bytes: Int) throws -> [pthread_t] {
        touching.store(bytes, ordering: .releasing)
        var handles: [pthread_t] = []
        for _ in 0..<threads {
            var handle = pthread_t()
            let context = Unmanaged.passUnretained(self).toOpaque()
            let status = pthread_create(
                &handle,
                nil,
                { context in
                    Unmanaged<ThreadGate>.fromOpaque(context!).takeUnretainedValue().body()
                    return nil
                },
                context
            )
            guard status == 0 else { throw ResidencyKnownAnswer.CheckError("pthread_create: \(status)") }
            handles.append(handle)
        }
        while ready.load(ordering: .acquiring) < handles.count { usleep(100) }
        return handles
    }

    func release() {
        released.store(true, ordering: .releasing)
    }

    private func body() {
        // The `touching` bytes below this frame, page by page: the thread's stack (8 MiB) holds
        // them, and the calls below (the sleeps) reuse the top of them. In C, with volatile stores:
        // Swift's optimizer may drop stores outside a variable's bounds.
        threadguard_touch_stack(touching.load(ordering: .acquiring))
        ready.add(1, ordering: .releasing)
        while !released.load(ordering: .acquiring) { usleep(200) }
    }
}
