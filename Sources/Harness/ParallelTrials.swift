import BenchCore
import Foundation
import Synchronization

/// Runs trials on up to `jobs` worker threads at once (each trial is a child process, so a
/// worker mostly waits), and hands every result back on the calling thread as it finishes: the
/// caller writes rows as they arrive and shares nothing with the workers.
///
/// An item marked exclusive runs alone: the workers drain, it runs, then they go on. That is how
/// figures that depend on what else runs (a race, a timing) stay serial inside a parallel run.
package enum ParallelTrials {
    /// Children at once that `--jobs` accepts: more than this only queues on any machine we know of.
    package static let maxJobs = 64

    /// - Parameters:
    ///   - launch: runs item `index` (the item's position in `items`); called on a worker thread.
    ///   - shouldStop: asked before every launch and after every result; once true no trial
    ///     starts, and a failed result (a child killed by the interruption) is dropped, not delivered.
    ///   - onResult: called on the calling thread, in finishing order.
    package static func run<Item: Sendable>(
        _ items: [Item],
        jobs: Int,
        exclusive: (Item) -> Bool = { _ in false },
        shouldStop: @escaping @Sendable () -> Bool,
        launch: @escaping @Sendable (_ index: Int, _ item: Item) -> TrialResult,
        onResult: (_ index: Int, _ result: TrialResult) -> Void
    ) {
        for segment in segments(items.indices, jobs: jobs, exclusive: { exclusive(items[$0]) }) {
            if shouldStop() { return }
            if segment.count == 1 || jobs == 1 {
                for index in segment {
                    if shouldStop() { return }
                    let result = launch(index, items[index])
                    if shouldStop() && !result.isSuccess { return }
                    onResult(index, result)
                }
            } else {
                runConcurrently(
                    Array(segment),
                    items: items,
                    jobs: min(jobs, segment.count),
                    shouldStop: shouldStop,
                    launch: launch,
                    onResult: onResult
                )
            }
        }
    }

    /// Consecutive runs of shareable items, each exclusive item on its own.
    package static func segments(_ indices: Range<Int>, jobs: Int, exclusive: (Int) -> Bool) -> [[Int]] {
        var segments: [[Int]] = []
        var current: [Int] = []
        for index in indices {
            if exclusive(index) {
                if !current.isEmpty {
                    segments.append(current)
                    current = []
                }
                segments.append([index])
            } else {
                current.append(index)
            }
        }
        if !current.isEmpty { segments.append(current) }
        return segments
    }

    /// What the workers and the calling thread share.
    private final class Board: Sendable {
        let next = Atomic<Int>(0)
        let finished = Mutex<[(index: Int, result: TrialResult?)]>([])
        /// Signalled once per finished trial and once per worker that has stopped (result nil).
        let ready = DispatchSemaphore(value: 0)

        func post(_ index: Int, _ result: TrialResult?) {
            finished.withLock { $0.append((index, result)) }
            ready.signal()
        }
    }

    private static func runConcurrently<Item: Sendable>(
        _ segment: [Int],
        items: [Item],
        jobs: Int,
        shouldStop: @escaping @Sendable () -> Bool,
        launch: @escaping @Sendable (Int, Item) -> TrialResult,
        onResult: (Int, TrialResult) -> Void
    ) {
        let board = Board()
        for _ in 0..<jobs {
            let worker = Thread {
                while !shouldStop() {
                    let slot = board.next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard slot < segment.count else { break }
                    let index = segment[slot]
                    let result = launch(index, items[index])
                    // A child killed because the run was interrupted is not a measurement.
                    if shouldStop() && !result.isSuccess { break }
                    board.post(index, result)
                }
                board.post(-1, nil)
            }
            worker.start()
        }
        var workersLeft = jobs
        while workersLeft > 0 {
            board.ready.wait()
            let taken = board.finished.withLock { finished -> [(index: Int, result: TrialResult?)] in
                defer { finished.removeAll() }
                return finished
            }
            for entry in taken {
                if let result = entry.result { onResult(entry.index, result) } else { workersLeft -= 1 }
            }
        }
    }
}
