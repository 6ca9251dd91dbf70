import Foundation

/// Turns a completion handler into a blocking call: the child has nothing else to do while it waits.
package final class BlockingCompletion<Value>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Value, Error>?

    package init() {}

    package func finish(_ result: Result<Value, Error>) {
        self.result = result
        done.signal()
    }

    package func wait() throws -> Value {
        done.wait()
        let value = try result!.get()
        result = nil  // the caller becomes the only owner of the payload
        return value
    }
}

/// Runs async code to completion from a plain thread and returns its result: the strategy
/// protocol is blocking, and the child has no other work for the caller's thread.
package func runBlocking<Value>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
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
