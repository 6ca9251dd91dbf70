import Foundation

/// Creates (or truncates) `url` for writing; the caller closes the descriptor.
package func createFile(_ url: URL) throws -> Int32 {
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
        throw FetchError.storage("cannot create \(url.path): \(String(cString: strerror(errno)))")
    }
    return descriptor
}

/// write(2) until every byte is written (it may write fewer), retrying on EINTR.
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += n
    }
    return true
}
