import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Calibration, not a way of fetching: a realloc that must move its block, the growth step of
/// an NSMutableData (or any growing buffer) under study, with a known answer. The allocator
/// copies the old block into the new one while both are live, so the true heap peak over the
/// baseline is at least `oldBytes + newBytes`, plus the neighbour that is in the way.
///
/// It mallocs `oldBytes` and touches them, mallocs a `neighbourBytes` block right after it so
/// the old block cannot grow in place, reallocs the old block to `newBytes`, touches the new
/// part, then frees both and returns an empty body. Under glibc it first raises
/// M_MMAP_THRESHOLD above `newBytes`: both blocks are then heap chunks and the move is a copy
/// (an mmapped chunk would be moved with mremap, which never has both blocks live). Under
/// jemalloc (which ignores glibc's mallopt) a large block that grows moves anyway.
package final class CalibrationReallocStrategy: FetchStrategy {
    package static let name = "calibration-realloc"
    package static let summary =
        "calibration: malloc 10 MB, a 64 KiB neighbour in the way, realloc to 20 MB (a moving copy), free; fetches nothing (checks the probe)"

    package static let oldBytes = 10_000_000
    package static let newBytes = 20_000_000
    package static let neighbourBytes = 65_536
    /// glibc's limit for M_MMAP_THRESHOLD on 64-bit (HEAP_MAX_SIZE / 2): above `newBytes`.
    static let mmapThreshold: Int32 = 32 * 1024 * 1024
    /// `M_MMAP_THRESHOLD` from glibc's <malloc.h>, which Swift's Glibc module does not import.
    static let mmapThresholdParameter: Int32 = -3

    private typealias MalloptFunction = @convention(c) (Int32, Int32) -> Int32
    /// glibc's mallopt, looked up here, before the measured window (its header is not imported).
    /// Under jemalloc it is still glibc's, and tunes an allocator nobody uses.
    private let mallopt: MalloptFunction?

    package init(workDirectory: URL) {
        let program = dlopen(nil, RTLD_NOW)
        mallopt = dlsym(program, "mallopt").map { unsafeBitCast($0, to: MalloptFunction.self) }
    }

    /// Where the blocks are published while they are live: pointers that escape keep the
    /// optimizer from removing allocations whose memory is never read.
    static let heldBlock = Atomic<UInt>(0)
    static let heldNeighbour = Atomic<UInt>(0)

    @_optimize(none)
    package func fetch(url: URL) throws -> FetchOutcome {
        // glibc: the old and new blocks must come from the heap, not from mmap (no effect under jemalloc).
        guard let mallopt, mallopt(Self.mmapThresholdParameter, Self.mmapThreshold) == 1 else {
            throw FetchError.storage("mallopt(M_MMAP_THRESHOLD) refused \(Self.mmapThreshold)")
        }
        guard let old = malloc(Self.oldBytes) else { throw FetchError.storage("malloc of the old block failed") }
        memset(old, 0x5A, Self.oldBytes)
        guard let neighbour = malloc(Self.neighbourBytes) else {
            free(old)
            throw FetchError.storage("malloc of the neighbour failed")
        }
        memset(neighbour, 0xA5, Self.neighbourBytes)
        Self.heldNeighbour.store(UInt(bitPattern: neighbour), ordering: .relaxed)
        let oldAddress = UInt(bitPattern: old)
        Self.heldBlock.store(oldAddress, ordering: .relaxed)

        guard let grown = realloc(old, Self.newBytes) else {
            free(old)
            free(neighbour)
            throw FetchError.storage("realloc to \(Self.newBytes) bytes failed")
        }
        Self.heldBlock.store(UInt(bitPattern: grown), ordering: .relaxed)
        memset(grown + Self.oldBytes, 0x5B, Self.newBytes - Self.oldBytes)
        let moved = UInt(bitPattern: grown) != oldAddress
        free(grown)
        free(neighbour)
        Self.heldBlock.store(0, ordering: .relaxed)
        Self.heldNeighbour.store(0, ordering: .relaxed)
        guard moved else {
            throw FetchError.storage("realloc grew the block in place: the known answer needs a moving realloc")
        }
        return FetchOutcome(payload: .memory(Data()), statusCode: 200, expectedContentLength: 0)
    }
}
