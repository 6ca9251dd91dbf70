import BenchCore
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data task whose delegate writes each chunk to a file as it arrives, so the whole body
/// never exists in memory. On Linux the chunks are at most 16 KiB and come on the delegate
/// queue without backpressure: the write must keep up, or the chunks queue up in memory.
package final class DataStreamStrategy: FetchStrategy {
    package static let name = "data-stream"
    /// Floor: the body streams to a file.
    package static let floor = FetchFloor.streamingBuffer(bytes: FetchFloor.fileStreamingBufferBytes)
    package static let summary =
        "URLSession data task whose delegate writes each received chunk to a file; no whole body in memory"

    private let workDirectory: URL
    private let delegate = ChunkWritingDelegate()
    private let session: URLSession

    package init(workDirectory: URL) {
        self.workDirectory = workDirectory
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1  // chunks are written in order
        session = URLSession(configuration: .default, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()  // a session keeps its delegate alive until invalidated
    }

    package func fetch(url: URL) throws -> FetchOutcome {
        let destination = freshDestination(in: workDirectory)
        let file = try createFile(destination)
        let completion = BlockingCompletion<HTTPURLResponse>()
        let task = session.dataTask(with: url)
        delegate.begin(task: task, file: file, completion: completion)
        task.resume()
        return try checkedOutcome(.file(destination), of: completion.wait())
    }
}

/// The session's delegate: one transfer at a time (the strategy blocks until each ends).
/// Every callback runs on the session's serial delegate queue.
final class ChunkWritingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Transfer {
        var taskIdentifier: Int
        var file: Int32
        var completion: BlockingCompletion<HTTPURLResponse>
        var storageError: String?
    }

    private let transfer = Mutex<Transfer?>(nil)

    func begin(task: URLSessionTask, file: Int32, completion: BlockingCompletion<HTTPURLResponse>) {
        transfer.withLock {
            $0 = Transfer(taskIdentifier: task.taskIdentifier, file: file, completion: completion)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer.withLock { transfer in
            guard var current = transfer, current.taskIdentifier == dataTask.taskIdentifier,
                current.storageError == nil
            else { return }
            let written = data.withUnsafeBytes { writeAll(current.file, $0) }
            if !written {
                current.storageError = String(cString: strerror(errno))
                transfer = current
                dataTask.cancel()
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let finished: Transfer? = transfer.withLock { transfer in
            guard let current = transfer, current.taskIdentifier == task.taskIdentifier else { return nil }
            transfer = nil
            return current
        }
        guard let finished else { return }
        finished.completion.finish(
            Result {
                close(finished.file)
                if let storageError = finished.storageError {
                    throw FetchError.storage("writing a chunk failed: \(storageError)")
                }
                return try validateResponse(task.response, error: error)
            }
        )
    }
}
