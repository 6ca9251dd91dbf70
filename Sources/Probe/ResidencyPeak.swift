import BenchCore
import CHeapPeak
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The residency snapshot with the highest RSS in a window. A new one is taken when RSS is a step
/// above the highest so far (a 64th of the rise since the window opened, at least `ResidencySnapshotRule.minimumStepBytes`), at three
/// kinds of moments:
/// - while a block of 1 MiB or more is freed (on the freeing thread, before its memory goes back to
///   the allocator): RSS can only fall when memory is given back, so that moment is where a peak
///   ends. The block has already left the heap's live bytes, so the snapshot's time cannot raise the
///   heap peak (a thread allocating meanwhile would otherwise count both); the snapshot still counts
///   it as resident, and so does a snapshot that another thread is taking, which the freeing
///   thread waits for;
/// - while the heap falls (glibc): once the blocks under 1 MiB freed since the hook last ran reach 64 KiB,
///   the freeing thread looks at the heap, and when its live bytes are at least 64 KiB below their
///   level at the last look (a decoder letting go of its working buffers: the allocator hands
///   their pages back at some free among them), at RSS as above;
/// - at a sample of the sampler thread, as long as the snapshots so far took at most 0.5% of the
///   time since the window opened (plus 0.5 ms), and 3 ms in all: a peak that a large free does
///   not end is rare, and a rise that goes on to the window's end is taken there.
/// The window's end is the last candidate (`atEnd`).
///
/// `@unchecked Sendable`: the snapshot state (`highest`, `count`, `nanos`, ...) is written only by the
/// thread that won `busy`, an atomic flag used as a try-lock: a sampler tick skips its turn when it is
/// taken, which a `Mutex` (whose value would hold that state) cannot do without waiting.
final class ResidencyPeak: @unchecked Sendable {
    static let minimumStep = ResidencySnapshotRule.minimumStepBytes
    static let releaseHookBytes: UInt64 = 1 << 20
    static let freedHookBytes: UInt64 = 64 * 1024
    static let fallingHeapBytes = 64 * 1024
    static let budgetShare = 0.005
    static let budgetAllowanceNanos: UInt64 = 500_000
    static let budgetNanos: UInt64 = 3_000_000
    static let retryNanos: UInt64 = 1_000_000

    private let probe: ResidencyProbe
    /// Held while a snapshot is taken: a second caller skips its turn, but for a large block's
    /// release, which waits.
    private let busy = Atomic<Bool>(false)
    // Written under `busy` only.
    private var highest: ResidencySnapshot?
    private var count = 0
    private var nanos: UInt64 = 0
    private var firstResident: Int?
    private var startedNanos: UInt64 = 0
    /// The time the release hook took on the freeing threads, its RSS reading included: what the
    /// snapshots add to the measured work (the sampler's run beside it).
    private let releaseNanos = Atomic<UInt64>(0)
    /// The heap's live bytes at the release hook's last look.
    private let heapAtLastLook = Atomic<Int>(0)

    init(probe: ResidencyProbe) {
        self.probe = probe
    }

    /// Starts watching large frees. The hook's context is retained for the process's life: a thread
    /// may still be inside the hook when `stop` clears it.
    func start() {
        startedNanos = MonotonicClock.now()
        let context = Unmanaged.passRetained(self).toOpaque()
        heappeak_set_release_hook(
            { context in
                let started = MonotonicClock.now()
                let peak = Unmanaged<ResidencyPeak>.fromOpaque(context!).takeUnretainedValue()
                let live = peak.probe.liveHeapBytes()
                let falling = live + ResidencyPeak.fallingHeapBytes <= peak.heapAtLastLook.load(ordering: .relaxed)
                peak.heapAtLastLook.store(live, ordering: .relaxed)
                if heappeak_releasing_bytes() >= ResidencyPeak.releaseHookBytes {
                    // Waits for a snapshot on another thread to end: the block stays counted as
                    // being freed, and resident, until then.
                    peak.consider(residentBytes: nil, budgeted: false, wait: true)
                    peak.lookAgainBeforeTheFree()
                } else if falling {
                    peak.consider(residentBytes: nil, budgeted: false, wait: false)
                }
                peak.releaseNanos.add(MonotonicClock.now() - started, ordering: .relaxed)
            },
            context,
            Self.releaseHookBytes,
            // jemalloc gives pages back on a timer, never in free: there a falling heap is no
            // moment of its own (and a first snapshot on a new thread costs it hundreds of KiB).
            probe.allocator == .system ? Self.freedHookBytes : 0
        )
    }

    /// Forgets the snapshots so far (taken before the baseline): the peak is the window's.
    func restart(baselineResidentBytes: Int) {
        while !busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {}
        defer { busy.store(false, ordering: .releasing) }
        highest = nil
        firstResident = baselineResidentBytes
        releaseNanos.store(0, ordering: .relaxed)
    }

    func stop() {
        heappeak_set_release_hook(nil, nil, 0, 0)
    }

    /// A sample of the sampler thread.
    func sampled(residentBytes: Int) {
        consider(residentBytes: residentBytes, budgeted: true, wait: false)
    }

    /// The snapshot at the window's end, which is also the highest when RSS is above every snapshot's.
    func atEnd() -> ResidencySnapshot {
        while !busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {}
        defer { busy.store(false, ordering: .releasing) }
        let started = MonotonicClock.now()
        let snapshot = probe.snapshot(keep: true)
        nanos += MonotonicClock.now() - started
        count += 1
        keepIfHighest(snapshot)
        return snapshot
    }

    /// The highest snapshot, how many were taken, the time they took, and the release hook's time
    /// since the baseline.
    func read() -> (ResidencySnapshot?, Int, UInt64, UInt64) {
        while !busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {}
        defer { busy.store(false, ordering: .releasing) }
        return (highest, count, nanos, releaseNanos.load(ordering: .relaxed))
    }

    /// A large block's release, after its snapshot: the block is resident until the hook returns and
    /// the allocator gives it back, and a thread descheduled after its snapshot lets the others fill
    /// pages meanwhile (megabytes on a loaded machine), a peak no snapshot would hold. So RSS is read
    /// again right before the free, and while it has risen a step above the highest snapshot, another
    /// is taken (for at most `retryNanos` of this thread's own time after the first look): what
    /// escapes is the rise between that last reading and the free, a few microseconds. Not wall time:
    /// on a loaded machine a snapshot descheduled halfway takes milliseconds of it, during which the
    /// other threads fill the pages that the next look must see.
    private func lookAgainBeforeTheFree() {
        let started = MonotonicClock.threadCPU()
        while consider(residentBytes: nil, budgeted: false, wait: true),
            MonotonicClock.threadCPU() - started < Self.retryNanos
        {}
    }

    /// `residentBytes`: RSS as read by the caller (nil: read here). `wait`: for a snapshot on
    /// another thread to end, rather than skip this turn. Returns whether it took a snapshot.
    @discardableResult
    private func consider(residentBytes reading: Int?, budgeted: Bool, wait: Bool) -> Bool {
        while !busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            guard wait else { return false }
            sched_yield()
        }
        defer { busy.store(false, ordering: .releasing) }
        let residentBytes = reading ?? probe.residentBytes()
        let floor = firstResident ?? residentBytes
        firstResident = floor
        let step = max(Self.minimumStep, (residentBytes - floor) / 64)
        if let highest, residentBytes < highest.residentBytes + step { return false }
        let started = MonotonicClock.now()
        if budgeted, highest != nil,
            nanos > Self.budgetNanos
                || Double(nanos) > Self.budgetShare * Double(started - startedNanos) + Double(Self.budgetAllowanceNanos)
        {
            return false
        }
        // The sampler's thread waits, within `retryNanos`, for a realloc moving a large block to
        // end, and a snapshot still torn by a move is no candidate. A release moment cannot wait:
        // a torn snapshot there is taken again, within `retryNanos` of its thread's time, and kept
        // (a busy moment may be the peak).
        while budgeted && probe.moveRunning && MonotonicClock.now() - started < Self.retryNanos { sched_yield() }
        var snapshot = probe.snapshot(keep: true)
        let retriesStarted = MonotonicClock.threadCPU()
        while !budgeted, !(snapshot.consistent && snapshot.heapHeldStill),
            MonotonicClock.threadCPU() - retriesStarted < Self.retryNanos
        {
            count += 1
            snapshot = probe.snapshot(keep: true)
        }
        nanos += MonotonicClock.now() - started
        count += 1
        if budgeted && !snapshot.consistent { return true }
        keepIfHighest(snapshot)
        return true
    }

    /// Under `busy`: `snapshot` (the last one taken) becomes the highest when it is, and the recorded
    /// blocks' residency that holders.csv reports becomes its.
    private func keepIfHighest(_ snapshot: ResidencySnapshot) {
        guard snapshot.residentBytes > highest?.residentBytes ?? Int.min else { return }
        highest = snapshot
        probe.keepHolderResidency()
    }
}
