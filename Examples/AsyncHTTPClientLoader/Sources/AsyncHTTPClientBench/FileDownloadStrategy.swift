import AsyncHTTPClient
import Foundation
import ImageMemoryBench

/// AsyncHTTPClient's `FileDownloadDelegate`: each body part is written to a file through NIO's
/// NonBlockingFileIO before the next is read from the socket, so little of the body is in memory.
struct FileDownloadStrategy: ImageFetchStrategy {
    static let name = "ahc-file"
    static let summary =
        "AsyncHTTPClient execute(request:delegate:) with FileDownloadDelegate; the body streams to a file"
    /// The body streams to a file: its floor is one buffer, whatever the body's size.
    static let floor = FetchFloor.streamingBuffer(bytes: FetchFloor.fileStreamingBufferBytes)

    let workDirectory: URL

    init(workDirectory: URL) {
        self.workDirectory = workDirectory
    }

    func fetch(url: URL) async throws -> FetchOutcome {
        let file = workDirectory.appendingPathComponent("ahc-\(UUID().uuidString).jpg")
        let delegate = try FileDownloadDelegate(path: file.path)
        let request = try HTTPClient.Request(url: url.absoluteString)
        let progress = try await HTTPClient.shared.execute(request: request, delegate: delegate).futureResult.get()
        // The delegate writes whatever body comes, an error page included: check the status after.
        let status = Int(progress.head.status.code)
        guard (200...299).contains(status) else {
            try? FileManager.default.removeItem(at: file)
            throw FetchError.httpStatus(status)
        }
        if let total = progress.totalBytes, total != progress.receivedBytes {
            throw FetchError.lengthMismatch(expected: Int64(total), received: progress.receivedBytes)
        }
        return FetchOutcome(
            payload: .file(file),
            statusCode: status,
            expectedContentLength: progress.totalBytes.map { Int64($0) } ?? -1
        )
    }
}
