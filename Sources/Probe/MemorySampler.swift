import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One reading of the process's memory, `time` in nanoseconds on the monotonic clock.
package struct MemorySample: Codable, Sendable, Equatable {
    package var time: UInt64
    package var residentBytes: Int
    package var allocatedBytes: Int
    /// The file-backed part of `residentBytes` (statm's shared field); the rest is anonymous.
    package var fileBytes: Int = 0

    package init(time: UInt64, residentBytes: Int, allocatedBytes: Int, fileBytes: Int = 0) {
        self.time = time
        self.residentBytes = residentBytes
        self.allocatedBytes = allocatedBytes
        self.fileBytes = fileBytes
    }
}

package enum MonotonicClock {
    package static func now() -> UInt64 { read(CLOCK_MONOTONIC) }

    /// The calling thread's CPU time: what it ran, not what it waited for a core.
    package static func threadCPU() -> UInt64 { read(CLOCK_THREAD_CPUTIME_ID) }

    private static func read(_ clock: clockid_t) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// A dedicated thread that reads RSS (kept-open statm) and the heap counters at a fixed rate.
///
/// The sample buffer is mapped once, before the measured window, straight from the kernel
/// (mmap, not malloc: the harness's own buffer must not show in the heap counters), and is
/// written without allocating. Untouched pages of it cost no RSS; the pages it fills grow
/// RSS by 24 bytes a sample (48 KB a second at 2 kHz), which is part of the error budget.
package final class MemorySampler {
    package let intervalNanos: UInt64
    private let memory: ProcessMemory
    private let heap: HeapCounters
    private let exactHeap: ExactHeapPeak?
    private let capacity: Int
    private let samples: UnsafeMutablePointer<MemorySample>
    private let state = SamplerState()
    private var thread: pthread_t?
    /// Takes a residency snapshot whenever RSS rises a step above the highest so far (nil: none).
    private let residency: ResidencyProbe?
    private let peakSnapshot: ResidencyPeak?

    /// - Parameters:
    ///   - heap: the allocator's counters, read for each sample when `exactHeap` is nil.
    ///   - exactHeap: the exact live-bytes counter (CHeapPeak); when counting, each sample reads it
    ///     instead (one atomic load, where mallinfo2 takes 15-35 µs and jemalloc's epoch
    ///     refresh 60-90 µs on this machine: at 2 kHz that was 6-40% of a core).
    ///   - intervalNanos: time between samples; the default 500 µs aims at 2 kHz.
    ///   - maximumDurationSeconds: how long the buffer must last; samples past it are counted as dropped.
    package init(
        heap: HeapCounters,
        exactHeap: ExactHeapPeak? = nil,
        intervalNanos: UInt64 = 500_000,
        maximumDurationSeconds: Double = 120,
        residency: ResidencyProbe? = nil
    ) throws {
        self.intervalNanos = intervalNanos
        self.residency = residency
        self.peakSnapshot = residency.map { ResidencyPeak(probe: $0) }
        self.memory = try ProcessMemory()
        self.heap = heap
        self.exactHeap = exactHeap
        self.capacity = Int(maximumDurationSeconds * 1e9 / Double(intervalNanos)) + 16
        let mapping = mmap(
            nil,
            capacity * MemoryLayout<MemorySample>.stride,
            PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS,
            -1,
            0
        )
        guard let mapping, mapping != MAP_FAILED else {
            throw ProbeError.sampleBuffer(bytes: capacity * MemoryLayout<MemorySample>.stride, errno: errno)
        }
        // Mapped through mmap(), whose wrapper notes it: residency counts it as other anonymous memory.
        self.samples = mapping.bindMemory(to: MemorySample.self, capacity: capacity)
    }

    deinit {
        munmap(samples, capacity * MemoryLayout<MemorySample>.stride)
    }

    package func start() throws {
        precondition(thread == nil, "sampler started twice")
        peakSnapshot?.start()
        let context = Unmanaged.passRetained(self).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 256 * 1024)
        var handle = pthread_t()
        let status = pthread_create(
            &handle,
            &attributes,
            { context in
                let sampler = Unmanaged<MemorySampler>.fromOpaque(context!).takeRetainedValue()
                sampler.run()
                return nil
            },
            context
        )
        guard status == 0 else {
            Unmanaged<MemorySampler>.fromOpaque(context).release()
            throw ProbeError.samplerThread(status: status)
        }
        thread = handle
        // Wait for the first sample so that callers can rely on coverage from here on.
        while state.count.load(ordering: .acquiring) == 0 { sched_yield() }
    }

    /// Forgets the residency snapshots taken before the baseline (`residentBytes`).
    package func residencyRestart(baselineResidentBytes: Int) {
        peakSnapshot?.restart(baselineResidentBytes: baselineResidentBytes)
    }

    /// The residency snapshot at the window's end (nil without a residency probe): taken now,
    /// also a candidate for the highest.
    package func residencyAtEnd() -> ResidencySnapshot? {
        peakSnapshot?.atEnd()
    }

    /// Stops the thread and returns every sample taken, oldest first.
    package func stop() -> SamplerRecording {
        guard let thread else {
            return SamplerRecording(samples: [], dropped: 0, intervalNanos: intervalNanos, cpuNanos: 0)
        }
        peakSnapshot?.stop()
        state.stopRequested.store(true, ordering: .releasing)
        pthread_join(thread, nil)
        self.thread = nil
        let count = min(state.count.load(ordering: .acquiring), capacity)
        let taken = Array(UnsafeBufferPointer(start: samples, count: count))
        // After the join: the sampler thread's writes to peakSnapshot are visible here.
        var recording = SamplerRecording(
            samples: taken,
            dropped: state.dropped.load(ordering: .acquiring),
            intervalNanos: intervalNanos,
            cpuNanos: state.cpuNanos.load(ordering: .acquiring)
        )
        if let peakSnapshot {
            (
                recording.residencyPeak, recording.residencySnapshots, recording.residencyNanos,
                recording.residencyReleaseNanos
            ) = peakSnapshot.read()
        }
        return recording
    }

    /// Takes one reading now, on the calling thread (used for baseline and final values). Safe
    /// while the sampler thread reads too: each statm reading has its own buffer.
    package func sampleNow() -> MemorySample {
        let statm = memory.readStatm()
        return MemorySample(
            time: MonotonicClock.now(),
            residentBytes: statm.resident,
            allocatedBytes: exactHeap?.read().live ?? heap.read().allocated,
            fileBytes: statm.file
        )
    }

    /// Calls `body` with each sample taken from index `start` on, oldest first, without allocating,
    /// and returns the index to go on from. Safe while the sampler thread runs.
    package func forEachSample(from start: Int, _ body: (MemorySample) -> Void) -> Int {
        let count = min(state.count.load(ordering: .acquiring), capacity)
        var index = start
        while index < count {
            body(samples[index])
            index += 1
        }
        return max(start, count)
    }

    /// Whether the sampler thread got real-time priority (see `run`).
    package var isRealtime: Bool { state.realtime.load(ordering: .acquiring) }

    private func run() {
        // On a busy machine a normal thread can wait tens of milliseconds for a core, and a
        // peak can pass unseen. SCHED_FIFO lets the sampler preempt other work; it sleeps
        // 99% of the time, so it takes little from the measured thread. Needs CAP_SYS_NICE
        // (root); without it the sampler stays a normal thread and `max_gap_ms` shows the cost.
        var parameters = sched_param(sched_priority: 1)
        state.realtime.store(pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0, ordering: .releasing)
        // A thread's first residency snapshot brings the allocator's state for reading into RSS
        // (under jemalloc about 150 KiB on this thread): rehearsed before the first sample, which
        // the window waits for to open, so that the window does not count it.
        _ = residency?.snapshot(keep: false)
        var deadline = MonotonicClock.now()
        while !state.stopRequested.load(ordering: .relaxed) {
            let sample = sampleNow()
            let index = state.count.load(ordering: .relaxed)
            if index < capacity {
                samples[index] = sample
                state.count.store(index + 1, ordering: .releasing)
            } else {
                state.dropped.add(1, ordering: .relaxed)
            }
            peakSnapshot?.sampled(residentBytes: sample.residentBytes)
            deadline += intervalNanos
            let now = MonotonicClock.now()
            if deadline <= now {
                deadline = now  // fell behind: sample again at once, do not try to catch up
                continue
            }
            var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
        }
        // What the sampler cost, measured rather than guessed: its own CPU time.
        state.cpuNanos.store(Int(MonotonicClock.threadCPU()), ordering: .releasing)
    }
}

private final class SamplerState {
    let stopRequested = Atomic<Bool>(false)
    let count = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    let realtime = Atomic<Bool>(false)
    let cpuNanos = Atomic<Int>(0)
}

/// What the sampler saw, with the statistics the harness reports about it.
package struct SamplerRecording: Sendable {
    package var samples: [MemorySample]
    package var dropped: Int
    package var intervalNanos: UInt64
    /// CPU time the sampler thread used over its whole life.
    package var cpuNanos: Int
    /// The residency snapshot with the highest RSS, how many the sampler took and their time.
    package var residencyPeak: ResidencySnapshot?
    package var residencySnapshots = 0
    package var residencyNanos: UInt64 = 0
    /// The release hook's time on the freeing threads since the baseline.
    package var residencyReleaseNanos: UInt64 = 0

    package init(samples: [MemorySample], dropped: Int, intervalNanos: UInt64, cpuNanos: Int = 0) {
        self.samples = samples
        self.dropped = dropped
        self.intervalNanos = intervalNanos
        self.cpuNanos = cpuNanos
    }

    /// Samples whose time lies in `start...end`.
    package func window(from start: UInt64, to end: UInt64) -> ArraySlice<MemorySample> {
        let first = samples.firstIndex { $0.time >= start } ?? samples.endIndex
        let last = samples.lastIndex { $0.time <= end }.map { $0 + 1 } ?? samples.startIndex
        return first < last ? samples[first..<last] : []
    }

    package func statistics(from start: UInt64, to end: UInt64) -> SamplerStatistics {
        let inWindow = window(from: start, to: end)
        var maxGap: UInt64 = 0
        var previous = start
        for sample in inWindow {
            maxGap = max(maxGap, sample.time &- previous)
            previous = sample.time
        }
        maxGap = max(maxGap, end &- previous)
        let seconds = Double(end - start) / 1e9
        return SamplerStatistics(
            count: inWindow.count,
            maxResidentBytes: inWindow.map(\.residentBytes).max() ?? 0,
            maxAllocatedBytes: inWindow.map(\.allocatedBytes).max() ?? 0,
            maxGapNanos: maxGap,
            achievedHertz: seconds > 0 ? Double(inWindow.count) / seconds : 0
        )
    }
}

package struct SamplerStatistics: Sendable, Equatable {
    package var count: Int
    package var maxResidentBytes: Int
    package var maxAllocatedBytes: Int
    /// Longest time with no sample inside the window (edges included): what a spike must outlast to be seen.
    package var maxGapNanos: UInt64
    package var achievedHertz: Double
}
