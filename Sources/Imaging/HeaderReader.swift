import Foundation

/// Where the header parsers read from: a buffer in memory, a file read with pread, or a forward-only
/// stream (a request body). Read front to back; what lies before the header (EXIF, XMP, ICC profiles,
/// text chunks) is skipped without being held.
package protocol HeaderByteSource {
    /// The input's size when known before reading (a buffer's count, a file's size); nil for a stream.
    var count: Int? { get }
    /// Up to `buffer.count` bytes from the current position; 0 at the end of the input.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Moves `count` bytes forward; returns how many were passed (fewer at the end of the input).
    mutating func skip(_ count: Int) throws -> Int
    /// The whole input when it is in memory already (HEIF's header is read from all of it), else nil.
    var wholeInMemory: Data? { get }
}

/// A body already in memory: read in place, nothing copied but the window.
package struct MemoryByteSource: HeaderByteSource {
    let data: Data
    var position = 0
    package init(_ data: Data) { self.data = data }
    package var count: Int? { data.count }
    package var wholeInMemory: Data? { data }

    package mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, data.count - position)
        guard n > 0 else { return 0 }
        let start = data.startIndex + position
        data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<start + n)
        position += n
        return n
    }

    package mutating func skip(_ count: Int) throws -> Int {
        let n = min(max(count, 0), data.count - position)
        position += n
        return n
    }
}

/// A file read with pread at our own position (the descriptor's offset is left alone); a skip is a
/// move of that position, no read.
package struct FileByteSource: HeaderByteSource {
    let descriptor: Int32
    let size: Int
    var position = 0
    let name: String

    /// `name` is the path, for errors. The caller keeps `descriptor` open while reading.
    package init(descriptor: Int32, name: String) throws {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw ImagingError.io("cannot read \(name): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        self.size = Int(status.st_size)
        self.name = name
    }

    package var count: Int? { size }
    package var wholeInMemory: Data? { nil }

    package mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let want = min(buffer.count, max(0, size - position))
        guard want > 0 else { return 0 }
        while true {
            let got = pread(descriptor, buffer.baseAddress, want, off_t(position))
            if got >= 0 {
                position += got
                return got
            }
            guard errno == EINTR else {
                throw ImagingError.io("cannot read \(name): \(String(cString: strerror(errno)))")
            }
        }
    }

    package mutating func skip(_ count: Int) throws -> Int {
        let n = min(max(count, 0), max(0, size - position))
        position += n
        return n
    }
}

/// A forward-only stream (a request body arriving): `pull` fills the buffer it is given and returns
/// how many bytes it wrote, 0 at the end. A skip reads and discards, 4 KiB at a time. The bytes read are
/// gone: a caller that needs them again (to decode after admitting the image) keeps them in `pull`.
package struct StreamByteSource: HeaderByteSource {
    let pull: (UnsafeMutableRawBufferPointer) throws -> Int
    package init(_ pull: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) { self.pull = pull }
    package var count: Int? { nil }
    package var wholeInMemory: Data? { nil }

    package mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard buffer.count > 0 else { return 0 }
        return min(max(0, try pull(buffer)), buffer.count)
    }

    package mutating func skip(_ count: Int) throws -> Int {
        var scratch = [UInt8](repeating: 0, count: 4096)
        var skipped = 0
        while skipped < count {
            let got = try scratch.withUnsafeMutableBytes {
                try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<min($0.count, count - skipped)]))
            }
            if got == 0 { break }
            skipped += got
        }
        return skipped
    }
}

/// Reads a HeaderByteSource front to back through a window of `windowBytes`: whatever the input
/// holds before the header, the parsers hold the window and the few bytes they ask for.
package final class HeaderReader {
    /// The window: what `peek` can see without consuming, and the unit of a read from the source.
    package static let windowBytes = 4096

    private var source: any HeaderByteSource
    private var window = [UInt8](repeating: 0, count: HeaderReader.windowBytes)
    private var start = 0
    private var end = 0
    private var ended = false
    /// Bytes consumed so far: the offset in the input of the next byte.
    package private(set) var offset = 0

    package init(_ source: any HeaderByteSource) { self.source = source }

    /// The input's size: known ahead for a buffer or a file, for a stream once its end is reached.
    var count: Int? { source.count ?? (ended ? offset + end - start : nil) }

    /// "20 bytes", or for a stream not yet at its end "at least 4096 bytes": for errors.
    var sizeText: String { count.map { "\($0) bytes" } ?? "at least \(offset + (end - start)) bytes" }

    var wholeInMemory: Data? { source.wholeInMemory }

    /// The next `count` bytes (at most `windowBytes`, fewer at the end), not consumed.
    func peek(_ count: Int) throws -> Data {
        let wanted = min(count, Self.windowBytes)
        if end - start < wanted { try refill(wanted) }
        return Data(window[start..<start + min(wanted, end - start)])
    }

    func u8() throws -> UInt8? {
        if start == end { try refill(1) }
        guard start < end else { return nil }
        defer {
            start += 1
            offset += 1
        }
        return window[start]
    }

    func be16() throws -> Int? {
        guard let high = try u8(), let low = try u8() else { return nil }
        return Int(high) << 8 | Int(low)
    }

    /// Exactly `count` bytes, or nil when the input ends first (what was there is consumed).
    func bytes(_ count: Int) throws -> ByteReader? {
        var collected = Data()
        while collected.count < count {
            if start == end { try refill(1) }
            guard start < end else { return nil }
            let n = min(count - collected.count, end - start)
            collected.append(contentsOf: window[start..<start + n])
            start += n
            offset += n
        }
        return ByteReader(collected)
    }

    /// Up to `count` bytes, fewer at the end of the input.
    func prefix(_ count: Int) throws -> Data {
        var collected = Data()
        while collected.count < count {
            if start == end { try refill(1) }
            guard start < end else { break }
            let n = min(count - collected.count, end - start)
            collected.append(contentsOf: window[start..<start + n])
            start += n
            offset += n
        }
        return collected
    }

    /// Passes `count` bytes without holding them: a file moves its position, a stream reads and
    /// discards. Returns false when the input ends first.
    @discardableResult
    func skip(_ count: Int) throws -> Bool {
        guard count > 0 else { return true }
        let buffered = min(count, end - start)
        start += buffered
        offset += buffered
        guard buffered < count else { return true }
        let passed = try source.skip(count - buffered)
        offset += passed
        if passed < count - buffered { ended = true }
        return passed == count - buffered
    }

    /// Moves what is left to the front of the window and reads until it holds `wanted` bytes or
    /// the input ends.
    private func refill(_ wanted: Int) throws {
        if start > 0 {
            window.replaceSubrange(0..<end - start, with: window[start..<end])
            end -= start
            start = 0
        }
        while !ended, end < wanted {
            let got = try window.withUnsafeMutableBytes {
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[end...]))
            }
            if got == 0 { ended = true } else { end += got }
        }
    }
}
