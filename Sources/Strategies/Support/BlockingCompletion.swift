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

/// Runs async code to completion from a plain thread and returns its result: the strategy
/// protocol is blocking, and the child has no other work for the caller's thread.
package func runBlocking<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
    let completion = BlockingCompletion<Value>()
    Task.detached {
        do {
            completion.finish(.success(try await body()))
        } catch {
            completion.finish(.failure(error))
        }
    }
    return try completion.wait()
}
