import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Calibration, not a way of fetching: a heap spike of known size and length, to check the
/// probe against a known answer. It mallocs `spikeBytes`, touches every page, holds the block
/// for `holdNanos` (busy, so the thread stays on its core), frees it and returns an empty body.
package final class CalibrationSpikeStrategy: FetchStrategy {
    package static let name = "calibration-spike"
    package static let summary =
        "calibration: malloc 50 MB, touch every page, hold 2 ms, free; fetches nothing (checks the probe)"

    package static let spikeBytes = 50_000_000
    package static let holdNanos: UInt64 = 2_000_000

    package init(workDirectory: URL) {}

    /// Where the block is published while it is held: a pointer that escapes to a global keeps
    /// the optimizer from removing a malloc, memset and free whose memory is never read.
    static let heldBlock = Atomic<UInt>(0)

    @_optimize(none)
    package func fetch(url: URL) throws -> FetchOutcome {
        guard let block = malloc(Self.spikeBytes) else { throw FetchError.storage("malloc of the spike failed") }
        Self.heldBlock.store(UInt(bitPattern: block), ordering: .relaxed)
        defer { Self.heldBlock.store(0, ordering: .relaxed) }
        memset(block, 0x5A, Self.spikeBytes)
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let until = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec) + Self.holdNanos
        repeat {
            clock_gettime(CLOCK_MONOTONIC, &now)
        } while UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec) < until
        free(block)
        return FetchOutcome(payload: .memory(Data()), statusCode: 200, expectedContentLength: 0)
    }
}
