import NIOCore

/// Paces one response body at `bytesPerSecond`, like a token bucket that starts empty:
/// the byte that ends at offset n may leave no earlier than `start + n / rate`. Deadlines
/// are absolute, so timer lateness is caught up and the average rate does not drift.
struct Throttle {
    let bytesPerSecond: Int
    let start: NIODeadline

    init(bytesPerSecond: Int, start: NIODeadline = .now()) {
        precondition(bytesPerSecond > 0, "bandwidth must be positive")
        self.bytesPerSecond = bytesPerSecond
        self.start = start
    }

    /// About 10 ms of data per piece (1 KiB ... 64 KiB): fine enough to keep the rate
    /// smooth, coarse enough to keep the event loop (and the machine) idle.
    var pieceSize: Int { min(64 * 1024, max(1024, bytesPerSecond / 100)) }

    /// When the bytes up to offset `sentAfterPiece` may have been sent.
    func deadline(forBytesSent sentAfterPiece: Int) -> NIODeadline {
        let nanoseconds = Double(sentAfterPiece) / Double(bytesPerSecond) * 1e9
        // Int64(Double) traps above Int64.max: a century is "never" for a response.
        return start + .nanoseconds(Int64(min(nanoseconds, 3.2e18)))
    }
}
