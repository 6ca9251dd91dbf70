import BenchCore
import Foundation

/// libcurl straight into memory: the floor for strategies that hold the body as `Data`.
/// The buffer is sized from Content-Length when the server announces it (otherwise it grows
/// by doubling) and handed to `Data` without a copy at the end: one copy of the body, no more.
package final class CurlMemoryStrategy: FetchStrategy {
    package static let name = "curl-memory"
    /// Floor: the body handed over in memory.
    package static let floor = FetchFloor.bodyInMemory
    package static let summary =
        "libcurl directly, write callback into a malloc buffer sized by Content-Length, handed to Data uncopied (the floor for Data)"
    /// The body's buffer, reserved from Content-Length in the `announced` closure (closure #1): in a
    /// release build `GrowingBuffer.reserve` is inlined there, so no frame names GrowingBuffer.
    package static let holderRoles = [
        HolderRoleRule(frameContains: "closure #1 in CurlMemoryStrategy.fetch", role: .body)
    ]

    private let transfer: Result<CurlTransfer, Error>

    package init(workDirectory: URL) {
        transfer = Result { try CurlTransfer() }  // fails when libcurl cannot allocate a handle: each fetch says so
    }

    package func fetch(url: URL) throws -> FetchOutcome { try fetch(url: url, posting: nil) }

    /// The same, POSTing `body` when given (the image server's load uploads with it): the answer is
    /// collected as a fetched body is.
    package func fetch(url: URL, posting body: Data?) throws -> FetchOutcome {
        let transfer = try transfer.get()
        let buffer = GrowingBuffer()
        let announced: (Int64) -> Void = { length in
            // A doubling buffer would peak at old + new block under jemalloc, which copies on realloc.
            if length > 0 { buffer.reserve(Int(length)) }
        }
        let receive: (UnsafeRawBufferPointer) -> Bool = { chunk in buffer.append(chunk) }
        let response =
            try body.map { body in
                try body.withUnsafeBytes { try transfer.get(url, posting: $0, announced: announced, receive: receive) }
            } ?? transfer.get(url, announced: announced, receive: receive)
        try checkStatusAndLength(response, received: buffer.count)
        return FetchOutcome(
            payload: .memory(buffer.takeData()),
            statusCode: response.statusCode,
            expectedContentLength: response.expectedContentLength
        )
    }
}

/// libcurl straight into a file with write(2): the floor for strategies that hold a file.
package final class CurlFileStrategy: FetchStrategy {
    package static let name = "curl-file"
    /// Floor: the body streams to a file.
    package static let floor = FetchFloor.streamingBuffer(bytes: FetchFloor.fileStreamingBufferBytes)
    package static let summary =
        "libcurl directly, write callback writing each chunk to a file with write(2) (the floor for files)"

    private let transfer: Result<CurlTransfer, Error>
    private let workDirectory: URL

    package init(workDirectory: URL) {
        transfer = Result { try CurlTransfer() }
        self.workDirectory = workDirectory
    }

    package func fetch(url: URL) throws -> FetchOutcome {
        let transfer = try transfer.get()
        let destination = freshDestination(in: workDirectory)
        let descriptor = try createFile(destination)
        var written = 0
        let response: CurlTransfer.Response
        do {
            defer { close(descriptor) }
            response = try transfer.get(url) { chunk in
                guard writeAll(descriptor, chunk) else { return false }
                written += chunk.count
                return true
            }
            try checkStatusAndLength(response, received: written)
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
        return FetchOutcome(
            payload: .file(destination),
            statusCode: response.statusCode,
            expectedContentLength: response.expectedContentLength
        )
    }
}

private func checkStatusAndLength(_ response: CurlTransfer.Response, received: Int) throws {
    guard (200..<300).contains(response.statusCode) else { throw FetchError.httpStatus(response.statusCode) }
    let expected = response.expectedContentLength
    if expected >= 0 && Int64(received) != expected {
        throw FetchError.lengthMismatch(expected: expected, received: received)
    }
}
