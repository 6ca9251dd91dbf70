import Dispatch
import Foundation
import Strategies
import Synchronization
import Testing

/// Blocking on async code from inside a task must not wait for the concurrency pool: with every
/// pool thread but one held by callers and the last by this test's wait, each caller still gets
/// its own answer.
@Suite struct RunBlockingTests {
    static let poolThreads = ProcessInfo.processInfo.activeProcessorCount

    @Test(.enabled(if: poolThreads > 1, "the pool needs a thread for a caller besides this test's"))
    func callersInsideTasksAreAnsweredWhileThePoolIsFull() {
        let callers = Self.poolThreads - 1
        let answers = Tally()
        let answered = DispatchSemaphore(value: 0)
        for caller in 1...callers {
            Task.detached {
                let answer = try? runBlocking {
                    await Task.yield()
                    return caller
                }
                answers.total.withLock { $0 += answer ?? 0 }
                answered.signal()
            }
        }
        // Generous: tests running beside this one may hold pool threads for a while.
        var finished = 0
        while finished < callers, answered.wait(timeout: .now() + 60) == .success { finished += 1 }
        #expect(finished == callers, "\(finished) of \(callers) callers answered within 60 s")
        #expect(finished < callers || answers.total.withLock { $0 } == callers * (callers + 1) / 2)
    }
}

final class Tally: Sendable {
    let total = Mutex(0)
}
