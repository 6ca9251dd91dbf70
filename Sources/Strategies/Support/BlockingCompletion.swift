import Foundation
import Synchronization

/// The one way this package blocks a thread on work that finishes elsewhere (a completion handler,
/// a delegate, a Swift task): one `finish`, then one `wait`. The child has nothing else to do while
/// it waits; the parent waits in slices where it must stay interruptible (`wait(until:shouldStop:)`).
package final class BlockingCompletion<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<Value, Error>?>(nil)

    package init() {}

    package func finish(_ result: Result<Value, Error>) {
        self.result.withLock { $0 = result }
        done.signal()
    }

    package func wait() throws -> Value {
        done.wait()
        // take(): the caller becomes the only owner of the payload.
        return try result.withLock { $0.take() }!.get()
    }

    /// Waits in slices of `slice` seconds until `finish`, `deadline`, or `shouldStop()`: the result,
    /// or nil when the deadline passed or `shouldStop()` said so (the caller tells which).
    package func wait(
        until deadline: DispatchTime,
        slice: Double = 0.1,
        shouldStop: () -> Bool
    ) -> Result<Value, Error>? {
        while done.wait(timeout: min(deadline, .now() + slice)) == .timedOut {
            if shouldStop() || DispatchTime.now() >= deadline { return nil }
        }
        return result.withLock { $0.take() }
    }
}

/// Runs async code to completion and returns its result: the strategy protocol is blocking. From a
/// plain thread (the child's trial thread) the code runs on the concurrency pool, as an app's would.
/// Inside a task (a test, a caller's async code) the caller's thread may be one of the pool's few,
/// and a task waiting for a pool that its own waiters fill never starts: there it runs on the
/// caller's thread instead.
package func runBlocking<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
    let completion = BlockingCompletion<Value>()
    let operation: @Sendable () async -> Void = {
        do {
            completion.finish(.success(try await body()))
        } catch {
            completion.finish(.failure(error))
        }
    }
    guard withUnsafeCurrentTask(body: { $0 != nil }) else {
        Task.detached(operation: operation)
        return try completion.wait()
    }
    let executor = CallerThreadExecutor()
    Task.detached(executorPreference: executor) {
        await operation()
        executor.stop()
    }
    executor.run()
    return try completion.wait()
}

/// A task executor whose jobs run on the thread that calls `run()`, until `stop()`. A job that
/// arrives after the stop (a task the operation started and left running) goes to the pool.
final class CallerThreadExecutor: TaskExecutor {
    private let queue = Mutex<(jobs: [UnownedJob], stopped: Bool)>(([], false))
    private let arrived = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let accepted = queue.withLock { state in
            if !state.stopped { state.jobs.append(job) }
            return !state.stopped
        }
        if accepted {
            arrived.signal()
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }

    func stop() {
        queue.withLock { $0.stopped = true }
        arrived.signal()
    }

    func run() {
        while true {
            arrived.wait()
            let (jobs, stopped) = queue.withLock { state in
                defer { state.jobs = [] }
                return (state.jobs, state.stopped)
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if stopped { return }
        }
    }
}
