import BenchCore
import Probe
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The settle's rule on made-up readings: it ends only once RSS and the heap have been flat for
/// the quiet interval, and at the latest at its maximum. No clock is read: times are the readings'.
@Suite struct SettleRuleTests {
    static let millisecond: UInt64 = 1_000_000
    static let start: UInt64 = 1_000 * millisecond

    /// Feeds a reading every half millisecond from `start` on, `reading(t)` giving (RSS, heap) at
    /// `t` ms after the start; returns the time (ms after the start) of the reading that met the rule,
    /// or nil when none in `limit` ms did.
    /// The settling thread takes a turn every `turnEvery` readings (1: after each, as on an idle machine).
    static func settle(
        _ rule: SettleRule = .standard,
        limit: Double = 500,
        turnEvery: Int = 1,
        _ reading: (Double) -> (resident: Int, heap: Int)
    ) -> Double? {
        var detector = SettleDetector(rule: rule, start: start)
        var t = 0.0
        var readings = 0
        while t <= limit {
            let (resident, heap) = reading(t)
            if detector.observe(time: start + UInt64(t * 1e6), residentBytes: resident, heapBytes: heap) { return t }
            readings += 1
            if readings % turnEvery == 0 { detector.turn() }
            t += 0.5
        }
        return nil
    }

    @Test func endsAQuietIntervalAfterTheLastMovement() {
        // RSS grows a MB every reading for 30 ms, then stays: over at 30 + 10 ms, not before.
        let end = Self.settle { t in (100_000_000 + Int(min(t, 30) * 2) * 1_000_000, 5_000_000) }
        #expect(end == 40)
    }

    @Test func aHeapMovementAloneRestartsTheQuietInterval() {
        // The heap drops by 16 MB at 7 ms (a framework freeing its buffer late), RSS never moves.
        let end = Self.settle { t in (100_000_000, t < 7 ? 30_000_000 : 14_000_000) }
        #expect(end == 17)
    }

    @Test func movementWithinTheTolerancesIsFlat() {
        let rule = SettleRule.standard
        let end = Self.settle { t in
            (
                100_000_000 + (Int(t * 2) % 2) * rule.residentToleranceBytes,
                5_000_000 + (Int(t * 2) % 2) * rule.heapToleranceBytes
            )
        }
        #expect(end == 10)
    }

    @Test func memoryThatNeverStopsMovingEndsAtTheMaximum() {
        let end = Self.settle { t in (100_000_000 + Int(t * 2) * 1_000_000, 5_000_000) }
        #expect(end == 50)
    }

    @Test func aFixedPauseEndsAtItsLengthWhenFlat() {
        let end = Self.settle(.fixed(nanos: 50 * Self.millisecond)) { _ in (100_000_000, 5_000_000) }
        #expect(end == 50)
    }

    @Test func aSettlingThreadStarvedOfTheCPUStretchesTheQuietInterval() {
        // Flat memory, but the settling thread gets a turn only every 2 ms (a busy machine): the 20
        // turns take 40 ms, and the movement a starved thread still owes may come in them.
        let end = Self.settle(turnEvery: 4) { _ in (100_000_000, 5_000_000) }
        #expect(end == 40)
        let starved = Self.settle(turnEvery: 10) { _ in (100_000_000, 5_000_000) }
        #expect(starved == 50, "never later than the maximum")
    }

    @Test func readingsBeforeTheStartDoNotCount() {
        var detector = SettleDetector(rule: .standard, start: Self.start)
        let early = detector.observe(time: Self.start - 20 * Self.millisecond, residentBytes: 1, heapBytes: 1)
        #expect(!early)
        for _ in 0..<SettleRule.defaultQuietTurns { detector.turn() }
        #expect(!detector.isSettled(at: Self.start + 9 * Self.millisecond))
        let beforeQuiet = detector.observe(time: Self.start + 9 * Self.millisecond, residentBytes: 1, heapBytes: 1)
        #expect(!beforeQuiet)
        let afterQuiet = detector.observe(time: Self.start + 10 * Self.millisecond, residentBytes: 1, heapBytes: 1)
        #expect(afterQuiet)
    }

    @Test func theQuietIntervalIsNeverLongerThanTheMaximum() {
        let rule = SettleRule(quietNanos: 80 * Self.millisecond, maximumNanos: 50 * Self.millisecond)
        #expect(rule.quietNanos == rule.maximumNanos)
        #expect(rule.isFixed)
    }
}

/// The shared measurement window in this process: it sees memory that moves during its settle
/// and closes only once the rule is met (flat for the quiet interval, or the maximum reached).
@Suite struct MeasurementWindowTests {
    @Test func closesOnlyAfterTheMemoryStoppedMoving() throws {
        let window = try MeasurementWindow(
            heap: try HeapCounters(expecting: .system),
            exactHeap: ExactHeapPeak(),
            intervalNanos: 500_000,
            maximumDurationSeconds: 5
        )
        let workEnded = MonotonicClock.now()
        // Memory moves after the work "ended": 8 MB touched and given back, five times, before the
        // window is asked to close (so the movement is in its settle whatever the machine's load).
        for _ in 0..<5 {
            let bytes = 8 << 20
            let pointer = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
            memset(pointer, 1, bytes)
            usleep(1_000)
            munmap(pointer, bytes)
            usleep(1_000)
        }
        let rule = SettleRule.standard
        let readings = window.close(workEnded: workEnded, settle: rule)
        #expect(readings.settleNanos >= rule.quietNanos)
        // Either flat for the quiet interval after the last movement it saw, or at the maximum.
        #expect(
            readings.settleNanos >= readings.lastMovementNanos + rule.quietNanos
                || readings.settleNanos >= rule.maximumNanos
        )
        #expect(readings.lastMovementNanos > 0, "the sampler saw the 8 MB come and go")
        #expect(
            readings.peakResidentBytes >= readings.baseline.residentBytes + (8 << 20)
                - SettleRule.defaultResidentToleranceBytes
        )
        #expect(readings.final.time >= readings.baseline.time)
    }
}
