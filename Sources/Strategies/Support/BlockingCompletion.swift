import Foundation
import Synchronization

/// Turns a completion handler into a blocking call: the child has nothing else to do while it waits.
/// One `finish`, then one `wait`.
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
