import Foundation
import Imaging
import Strategies

/// An image's header read from the origin with `Range` requests, before the request is admitted:
/// the header reader skips metadata by its length, so a skip moves the next range's start and the
/// skipped bytes are never fetched. An origin that ignores `Range` (a 200) gives its first part
/// only: the header is read from that, or not at all.
package enum OriginHeader {
    /// What the origin told of an image before its body was fetched.
    package struct Answer: Sendable, Equatable {
        /// nil: the header could not be read from the parts (no Range, or it lies further).
        package var info: ImageInfo?
        /// The image's size in bytes, nil when the origin did not say.
        package var totalBytes: Int?
        /// Ranged requests made.
        package var requests: Int
    }

    /// Bytes a ranged request asks for: a JPEG's EXIF and ICC are skipped by length, so its frame
    /// header is usually in the first part or the second.
    package static let partBytes = 16 << 10
    /// Ranged requests at most: a header this far in is not worth the round trips.
    package static let maximumRequests = 32

    /// Reads the header of `url`. Throws `FetchError` when the origin cannot be reached or
    /// answers neither 200 nor 206 (the status, for the server to pass on).
    package static func read(_ url: URL) throws -> Answer {
        let source = RangedSource(url: url, reader: try CurlRangeReader())
        let info: ImageInfo?
        do {
            info = try ImageInspector.inspect(source: source)
        } catch let error as ImagingError
            where source.state.rangesHonoured && source.state.requests < maximumRequests
        {
            throw error  // the origin gave every byte asked for: this is no image of ours, or a broken one
        } catch is ImagingError {
            info = nil  // the header lies past what the origin gave: the worst case is reserved
        }
        return Answer(info: info, totalBytes: source.state.totalBytes, requests: source.state.requests)
    }

    /// The parts fetched so far, shared with the caller (the source is copied into the reader).
    final class PartState {
        var totalBytes: Int?
        var requests = 0
        var rangesHonoured = true
    }

    struct RangedSource: HeaderByteSource {
        let url: URL
        let reader: CurlRangeReader
        let state = PartState()
        var position = 0
        var buffered = Data()
        var bufferedStart = 0

        var count: Int? { state.totalBytes }
        var wholeInMemory: Data? { nil }

        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            if position >= bufferedStart + buffered.count {  // reads only go forward
                guard try fetchPart() else { return 0 }
            }
            let start = position - bufferedStart
            let n = min(buffer.count, buffered.count - start)
            guard n > 0 else { return 0 }
            buffered.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<start + n]))
            }
            position += n
            return n
        }

        mutating func skip(_ count: Int) throws -> Int {
            let n = max(0, min(count, (state.totalBytes ?? Int.max) - position))
            position += n
            return n
        }

        /// The part from `position`; false when there is none (the end, no Range, too many requests).
        private mutating func fetchPart() throws -> Bool {
            if let total = state.totalBytes, position >= total { return false }
            guard state.rangesHonoured, state.requests < OriginHeader.maximumRequests else { return false }
            state.requests += 1
            let part = try reader.read(url, offset: position, length: OriginHeader.partBytes)
            guard part.statusCode == 200 || part.statusCode == 206 else { throw FetchError.httpStatus(part.statusCode) }
            state.totalBytes = part.totalBytes ?? state.totalBytes
            if !part.partial {
                // The whole body was sent: its first part is all we take. From offset 0 it is usable.
                state.rangesHonoured = false
                guard position == 0 else { return false }
            }
            buffered = part.bytes
            bufferedStart = position
            return !part.bytes.isEmpty
        }
    }
}
