import BenchCore
import Foundation
import Harness
import Imaging
import Probe

/// The child side of `bench scenario list-scroll`: moves a window of rows over the list,
/// starting a request for each row that enters and cancelling the request of each row that
/// leaves, and measures RSS and heap from a warmed-up baseline to the end of the scroll.
package enum ScrollSimulation {
    package static func run(_ spec: ScrollSpec) -> ScrollResult {
        var result = ScrollResult(spec: spec)
        result.pid = getpid()
        do {
            try measure(spec, into: &result)
        } catch {
            result.status = .harnessError
            result.error = String(describing: error)
        }
        return result
    }

    private static func measure(_ spec: ScrollSpec, into result: inout ScrollResult) throws {
        var peakRecorder: DispatchSourceTimer?
        if let limit = spec.memoryLimitBytes {
            peakRecorder = MemoryBudget.recordPeak(in: spec.workDirectory)
            try MemoryBudget.apply(limitBytes: limit)
        }
        defer { peakRecorder?.cancel() }
        let heap = try HeapCounters(expecting: spec.allocator)
        let rows = RowBoard(
            cache: spec.cacheLimitBytes > 0 ? CostLimitedCache(costLimit: spec.cacheLimitBytes) : nil,
            cacheKeySize: [.thumbnail, .stream].contains(spec.render) ? spec.maxPixel : 0
        )
        let loader = RowLoader(
            strategy: spec.strategy,
            render: spec.render,
            maxPixel: spec.maxPixel,
            maxConcurrent: spec.maxConcurrent,
            retries: spec.retries,
            maxImagePixels: spec.maxImagePixels
        ) { row, result in
            rows.deliver(row: row, result: result)
        }
        if let warmupURL = spec.warmupURL { try loader.warmUp(url: warmupURL) }

        let window = try MeasurementWindow(
            heap: heap,
            exactHeap: ExactHeapPeak(),
            intervalNanos: spec.sampleIntervalNanos,
            maximumDurationSeconds: spec.scrollSeconds + spec.timeoutSeconds + 5
        )
        let baseline = window.baseline

        var visible = Set<Int>()
        let stepNanos = UInt64(1e9 / spec.rowsPerSecond)
        for (step, top) in spec.windowPath.enumerated() {
            sleep(until: baseline.time + UInt64(step) * stepNanos)
            let now = Set(top..<min(top + spec.visibleRows, spec.rowURLs.count))
            for row in visible.subtracting(now).sorted() {
                loader.cancel(row: row)
                rows.leave(row)
            }
            for row in now.subtracting(visible).sorted() where !rows.enter(row, url: spec.rowURLs[row]) {
                loader.request(row: row, url: spec.rowURLs[row])
            }
            visible = now
        }
        // The user stops scrolling: wait (bounded) for the rows on screen to get their images.
        let deadline = MonotonicClock.now() + UInt64(spec.timeoutSeconds * 1e9)
        while !rows.allShown(visible) && MonotonicClock.now() < deadline { usleep(2_000) }
        let scrolled = MonotonicClock.now()
        // Cancelled tasks report back after the fact; the steady state is when all have.
        while !loader.isIdle && MonotonicClock.now() < deadline { usleep(2_000) }
        let readings = window.close(workEnded: MonotonicClock.now(), settle: spec.settleRule)

        result.baselineRSSBytes = baseline.residentBytes
        result.peakRSSBytes = readings.peakResidentBytes
        result.finalRSSBytes = readings.final.residentBytes
        result.baselineHeapBytes = readings.exactBaseline ?? baseline.allocatedBytes
        result.peakHeapBytes = readings.peakHeapBytes
        result.finalHeapBytes = readings.final.allocatedBytes
        result.durationSeconds = Double(scrolled - baseline.time) / 1e9

        let counters = loader.snapshot
        result.requestsStarted = counters.started
        result.requestsCompleted = counters.completed
        result.requestsCancelled = counters.cancelled
        result.requestsFailed = counters.failed
        result.requestsRetried = counters.retried
        result.bytesDelivered = counters.bytesDelivered
        result.orphanedFilesRemoved = counters.orphanedFilesRemoved
        rows.report(into: &result)
        if !rows.allShown(visible) {
            result.status = .timeout
            result.error = "rows on screen still had no image after \(spec.timeoutSeconds) s"
        }
    }

    private static func sleep(until time: UInt64) {
        let now = MonotonicClock.now()
        guard time > now else { return }
        var wait = timespec(tv_sec: Int((time - now) / 1_000_000_000), tv_nsec: Int((time - now) % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&wait, &remaining) != 0 && errno == EINTR { wait = remaining }
    }
}
