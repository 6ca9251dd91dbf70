import Foundation
import Probe
import Synchronization

/// Reads the stage gauges beside the live heap every interval, on a thread of its own, and keeps
/// the gauges at the highest live heap it saw (the exact peak itself falls between two readings,
/// so "at the peak" means within one interval of it) and each gauge's own maximum.
final class StageWatcher: Sendable {
    private let gauges: StageGauges
    private let liveHeap: @Sendable () -> Int
    private let intervalNanos: UInt64
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let readings = Mutex<(highestHeap: Int, atHighest: StageCounts, maxima: StageCounts)>(
        (Int.min, StageCounts(), StageCounts())
    )

    init(gauges: StageGauges, liveHeap: @escaping @Sendable () -> Int, intervalNanos: UInt64) {
        self.gauges = gauges
        self.liveHeap = liveHeap
        self.intervalNanos = max(intervalNanos, 100_000)
        Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                observe()
                var wait = timespec(tv_sec: 0, tv_nsec: Int(self.intervalNanos))
                nanosleep(&wait, nil)
            }
            observe()
            finished.signal()
        }.start()
    }

    /// Stops the thread and returns the gauges at the highest live heap, and each gauge's maximum.
    func stop() -> (atHeapPeak: StageCounts, maxima: StageCounts) {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
        return readings.withLock { ($0.atHighest, $0.maxima) }
    }

    private func observe() {
        let heap = liveHeap()
        let now = gauges.read()
        readings.withLock { state in
            if heap > state.highestHeap { (state.highestHeap, state.atHighest) = (heap, now) }
            state.maxima.inFlight = max(state.maxima.inFlight, now.inFlight)
            state.maxima.fetching = max(state.maxima.fetching, now.fetching)
            state.maxima.waitingToRender = max(state.maxima.waitingToRender, now.waitingToRender)
            state.maxima.rendering = max(state.maxima.rendering, now.rendering)
            state.maxima.writing = max(state.maxima.writing, now.writing)
        }
    }
}
