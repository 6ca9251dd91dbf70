import Foundation

/// A malloc'd byte buffer that doubles its capacity with realloc when it runs out. Pages past
/// the end of the data are never touched, so they do not count in RSS; but growing costs
/// differently per allocator: glibc moves large blocks with mremap (no copy), jemalloc copies
/// into a new block, so both old and new are resident for a moment. `reserve` avoids growing.
package final class GrowingBuffer {
    private var bytes: UnsafeMutableRawPointer?
    private var capacity = 0
    package private(set) var count = 0

    package init() {}

    deinit { free(bytes) }

    /// Makes room for `capacity` bytes in one allocation (only before anything is appended).
    package func reserve(_ capacity: Int) {
        guard bytes == nil, capacity > 0, let block = malloc(capacity) else { return }
        bytes = block
        self.capacity = capacity
    }

    /// Appends `chunk`; false if memory ran out.
    package func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard !chunk.isEmpty else { return true }
        if count + chunk.count > capacity {
            var newCapacity = max(capacity, 64 * 1024)
            while newCapacity < count + chunk.count { newCapacity *= 2 }
            guard let grown = realloc(bytes, newCapacity) else { return false }
            bytes = grown
            capacity = newCapacity
        }
        (bytes! + count).copyMemory(from: chunk.baseAddress!, byteCount: chunk.count)
        count += chunk.count
        return true
    }

    /// The bytes as `Data`, which takes over the block (trimmed to size): no copy.
    package func takeData() -> Data {
        guard let block = bytes, count > 0 else { return Data() }
        let trimmed = realloc(block, count) ?? block
        bytes = nil
        capacity = 0
        return Data(bytesNoCopy: trimmed, count: count, deallocator: .free)
    }
}
