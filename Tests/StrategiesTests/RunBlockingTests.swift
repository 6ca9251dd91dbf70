import Foundation
import Strategies
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Blocking on async code: inside a task the code runs on the caller's own thread, so it never
/// waits for a pool thread that its callers may all hold; from a plain thread (a trial's) it runs
/// on the pool, as an app's async code would. Serialized: beside the first, the second would hold
/// one of a 2-core pool's two threads.
@Suite(.serialized) struct RunBlockingTests {
    static func threadRunningTheWork() throws -> (caller: pthread_t, work: pthread_t) {
        let caller = pthread_self()
        let work = try runBlocking {
            await Task.yield()
            return pthread_self()
        }
        return (caller, work)
    }

    @Test func insideATaskTheWorkRunsOnTheCallersThread() throws {
        #expect(withUnsafeCurrentTask { $0 != nil })
        let threads = try Self.threadRunningTheWork()
        #expect(pthread_equal(threads.caller, threads.work) != 0)
    }

    @Test func fromAPlainThreadTheWorkRunsOnThePool() throws {
        let result = BlockingCompletion<(caller: pthread_t, work: pthread_t)>()
        let thread = Thread { result.finish(Result { try Self.threadRunningTheWork() }) }
        thread.start()
        let threads = try result.wait()
        #expect(pthread_equal(threads.caller, threads.work) == 0)
    }
}
