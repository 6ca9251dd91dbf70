import BenchCore
import Foundation
import Harness
import Synchronization
import Testing

/// The pool alone, with a launch that records how many trials are in flight: jobs bound the
/// concurrency from above, they are really used (two trials meet), exclusive items run alone.
@Suite struct ParallelTrialsTests {
    /// Counts trials in flight and the most seen at once; `meet` makes the first `n` launches
    /// wait (bounded) until `n` are in flight, so a pool that runs them one at a time is caught.
    final class InFlight: Sendable {
        let now = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let duringExclusive = Mutex<[Int]>([])

        func enter() -> Int {
            let current = now.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
            var seen = most.load(ordering: .sequentiallyConsistent)
            while current > seen {
                let (exchanged, original) = most.compareExchange(
                    expected: seen,
                    desired: current,
                    ordering: .sequentiallyConsistent
                )
                if exchanged { break }
                seen = original
            }
            return current
        }

        func leave() { now.wrappingSubtract(1, ordering: .sequentiallyConsistent) }

        /// Waits up to 10 s for `count` trials in flight; false if they never meet.
        func waitFor(_ count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while now.load(ordering: .sequentiallyConsistent) < count && Date() < deadline { usleep(1000) }
            return now.load(ordering: .sequentiallyConsistent) >= count
        }
    }

    static func result(_ run: Int) -> TrialResult {
        var result = TrialResult(
            spec: TrialSpec(
                strategy: "download",
                render: .none,
                allocator: .system,
                run: run,
                url: URL(string: "http://127.0.0.1/")!,
                warmupURL: nil,
                workDirectory: URL(fileURLWithPath: "/tmp")
            ),
            pid: Int32(run)
        )
        result.status = .ok
        return result
    }

    @Test func twoJobsRunTwoAtOnceAndNeverMore() {
        let flight = InFlight()
        let met = Mutex(0)
        var delivered: [Int] = []
        ParallelTrials.run(
            Array(0..<8),
            jobs: 2,
            shouldStop: { false },
            launch: { index, _ in
                _ = flight.enter()
                if flight.waitFor(2) { met.withLock { $0 += 1 } }
                usleep(2000)
                flight.leave()
                return Self.result(index)
            },
            onResult: { index, _ in delivered.append(index) }
        )
        #expect(delivered.sorted() == Array(0..<8), "every item once")
        #expect(flight.most.load(ordering: .sequentiallyConsistent) == 2, "at most two at once, and two did meet")
        #expect(met.withLock { $0 } >= 2)
    }

    @Test func oneJobIsSerial() {
        let flight = InFlight()
        var delivered: [Int] = []
        ParallelTrials.run(
            Array(0..<5),
            jobs: 1,
            shouldStop: { false },
            launch: { index, _ in
                _ = flight.enter()
                usleep(1000)
                flight.leave()
                return Self.result(index)
            },
            onResult: { index, _ in delivered.append(index) }
        )
        #expect(delivered == Array(0..<5), "in order")
        #expect(flight.most.load(ordering: .sequentiallyConsistent) == 1)
    }

    @Test func exclusiveItemsRunAlone() {
        let flight = InFlight()
        var delivered: [Int] = []
        // Items 3 and 7 are exclusive: nothing else may be in flight while they run.
        ParallelTrials.run(
            Array(0..<10),
            jobs: 3,
            exclusive: { $0 == 3 || $0 == 7 },
            shouldStop: { false },
            launch: { index, item in
                let inFlight = flight.enter()
                if item == 3 || item == 7 { flight.duringExclusive.withLock { $0.append(inFlight) } }
                usleep(3000)
                flight.leave()
                return Self.result(index)
            },
            onResult: { index, _ in delivered.append(index) }
        )
        #expect(delivered.sorted() == Array(0..<10))
        #expect(flight.duringExclusive.withLock { $0 } == [1, 1], "alone")
        #expect(
            (2...3).contains(flight.most.load(ordering: .sequentiallyConsistent)),
            "the others still run in parallel, at most 3"
        )
    }

    @Test func segmentsSplitAroundExclusiveItems() {
        let segments = ParallelTrials.segments(0..<7, jobs: 2) { $0 == 2 || $0 == 3 || $0 == 6 }
        #expect(segments == [[0, 1], [2], [3], [4, 5], [6]])
    }

    @Test func stopDropsFailedResultsAndStartsNothingMore() {
        let stop = Atomic<Bool>(false)
        let launched = Atomic<Int>(0)
        var delivered: [Int] = []
        ParallelTrials.run(
            Array(0..<20),
            jobs: 2,
            shouldStop: { stop.load(ordering: .sequentiallyConsistent) },
            launch: { index, _ in
                launched.wrappingAdd(1, ordering: .sequentiallyConsistent)
                if index == 3 { stop.store(true, ordering: .sequentiallyConsistent) }
                var result = Self.result(index)
                if index == 3 { result.status = .crashed }  // killed by the interruption: not a row
                return result
            },
            onResult: { index, _ in delivered.append(index) }
        )
        #expect(!delivered.contains(3))
        #expect(
            launched.load(ordering: .sequentiallyConsistent) <= 5,
            "at most the one in flight beside it started after"
        )
    }
}
