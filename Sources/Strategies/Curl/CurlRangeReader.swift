import Foundation

/// Reads parts of a resource with HTTP `Range` requests on one kept-alive libcurl handle: the image
/// server reads an image's header this way before it admits the request, so the body is not held
/// to learn what it will cost. Never more than the asked length enters memory, whatever the
/// origin answers.
package final class CurlRangeReader {
    private let transfer: CurlTransfer

    package init() throws { transfer = try CurlTransfer() }

    /// One part of a resource, as the origin answered it.
    package struct Part: Sendable, Equatable {
        /// The bytes received: the part asked for (fewer at the end), or with `partial` false the
        /// first bytes of the whole body, cut at the length asked for.
        package var bytes: Data
        /// 206: the origin sent the range; false: it sent the whole body (200), or nothing usable.
        package var partial: Bool
        /// The resource's size: from Content-Range for a part, Content-Length for a whole body; nil unknown.
        package var totalBytes: Int?
        package var statusCode: Int
    }

    /// `length` bytes from `offset`. Throws `FetchError` when the transfer fails; a status that is
    /// neither 200 nor 206 is returned as it is, for the caller to answer.
    package func read(_ url: URL, offset: Int, length: Int) throws -> Part {
        var bytes = Data()
        let response = try transfer.get(
            url,
            range: "\(offset)-\(offset + max(1, length) - 1)",
            maximumBytes: max(1, length)
        ) { chunk in
            bytes.append(contentsOf: chunk)
            return true
        }
        let partial = response.statusCode == 206
        let total =
            partial
            ? transfer.header("Content-Range").flatMap(Self.totalBytes(contentRange:))
            : (response.expectedContentLength >= 0 && response.statusCode == 200
                ? Int(response.expectedContentLength) : nil)
        return Part(bytes: bytes, partial: partial, totalBytes: total, statusCode: response.statusCode)
    }

    /// The size after the slash of `bytes FIRST-LAST/SIZE`, nil for `*` or anything else.
    package static func totalBytes(contentRange: String) -> Int? {
        guard let slash = contentRange.lastIndex(of: "/") else { return nil }
        return Int(contentRange[contentRange.index(after: slash)...].filter { $0 != " " })
    }
}
