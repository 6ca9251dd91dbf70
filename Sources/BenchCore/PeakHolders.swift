import Foundation

/// One frame of a recorded block's stack, as the child saw it: the file it is in and its offset
/// there (what a symbolizer needs), and the nearest exported symbol `dladdr` knew, if any.
package struct StackFrame: Codable, Sendable, Hashable {
    package var module: String
    package var offset: UInt64
    package var symbol: String?

    package init(module: String, offset: UInt64, symbol: String?) {
        self.module = module
        self.offset = offset
        self.symbol = symbol
    }
}

/// A block live at the exact heap peak, as the child reports it (frames innermost first).
package struct PeakBlock: Codable, Sendable {
    package var bytes: Int
    /// When it was allocated and freed (nil: still live), in seconds from the measured window's start
    /// (negative: before it, in the warm-up).
    package var allocatedSeconds: Double
    package var freedSeconds: Double?
    package var frames: [StackFrame]
    /// Its bytes resident at the residency snapshot nearest the RSS peak (nil: not taken).
    package var residentBytes: Int?

    package init(bytes: Int, allocatedSeconds: Double, freedSeconds: Double?, frames: [StackFrame]) {
        self.bytes = bytes
        self.allocatedSeconds = allocatedSeconds
        self.freedSeconds = freedSeconds
        self.frames = frames
    }
}

/// Who holds the peak: the blocks live at the exact heap peak that share one call stack, named
/// for people. `allocatedBy` is the first frame outside the allocator, the Swift runtime and the
/// standard library's and Foundation's storage; `stack` is folded, outermost frame first.
package struct PeakHolder: Codable, Sendable, Equatable {
    package var bytes: Int
    package var blocks: Int
    package var allocatedBy: String
    /// The file `allocatedBy` is in ("bench", "libFoundationNetworking.so").
    package var module: String
    package var stack: [String]
    /// What the blocks are for, from their frames (`HolderRoleRule`); nil in files from before roles.
    package var role: HolderRole?
    /// Its blocks' bytes resident at the residency snapshot nearest the RSS peak (a block freed
    /// by then counts 0); nil when no snapshot was taken.
    package var residentBytes: Int?

    package init(
        bytes: Int,
        blocks: Int,
        allocatedBy: String,
        module: String,
        stack: [String],
        role: HolderRole? = nil,
        residentBytes: Int? = nil
    ) {
        self.bytes = bytes
        self.blocks = blocks
        self.allocatedBy = allocatedBy
        self.module = module
        self.stack = stack
        self.role = role
        self.residentBytes = residentBytes
    }

    /// The name of the line that stands for every block under the recording threshold.
    package static let smallBlocks = "small blocks"

    /// `a;b;c`, outermost first: a flame graph's folded stack.
    package var foldedStack: String { stack.map { $0.replacingOccurrences(of: ";", with: ",") }.joined(separator: ";") }
}

extension TrialResult {
    /// The recorded holders' bytes: the exact heap peak less the small blocks.
    package var attributedBytes: Int? {
        guard let holders else { return nil }
        return holders.reduce(0) { $0 + $1.bytes }
    }

    /// The exact heap peak less the recorded holders: blocks under the threshold, and blocks from
    /// before recording started or that the full table could not record.
    package var smallBlocksBytes: Int? {
        guard let attributedBytes, let peakHeapExactBytes else { return nil }
        return peakHeapExactBytes - attributedBytes
    }

    /// The largest holder's name.
    package var peakHolder: String? { holders?.max { $0.bytes < $1.bytes }?.allocatedBy }
}
