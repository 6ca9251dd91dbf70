/// What a block that holds the heap peak is for, named from its call stack (holders.csv's `role`).
public enum HolderRole: String, Codable, Sendable, CaseIterable {
    /// The body handed to the caller, which an in-memory API's contract requires.
    case body
    /// Any other copy or staging buffer of the body (a transfer buffer, a copy, a growing buffer's old block).
    case bodyBuffer = "body-buffer"
    /// Decoded pixels kept for display.
    case bitmap
    /// A decoder's working memory: coefficients, rows, planes, a zlib window.
    case decoder
    /// An image cache's entries.
    case cache
    /// Anything else, and the blocks under the recording threshold.
    case other
}

/// One line of the table that names holders' roles: a holder with a frame whose name or file
/// contains `frameContains` gets `role`. The first line that matches any frame of a stack wins.
///
/// A payload store (`.body`) that the caller no longer holds when the measured window closes is a
/// staging buffer, not the body: such a holder is `.bodyBuffer`.
public struct HolderRoleRule: Sendable, Equatable {
    /// Part of a frame's function name (`"MyCache.insert"`) or file name (`"libmydecoder.so"`).
    public var frameContains: String
    public var role: HolderRole

    /// Holders with a frame containing `frameContains` get `role`.
    public init(frameContains: String, role: HolderRole) {
        self.frameContains = frameContains
        self.role = role
    }
}
