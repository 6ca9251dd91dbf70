/// The rows a shard plans to write, as their number and an order-free digest of their keys:
/// enough for `bench merge` to tell a shard that holds every planned row once from one that
/// stopped early, without storing the keys themselves (a corpus may plan millions of rows).
package struct PlannedKeys: Sendable, Equatable {
    package private(set) var count = 0
    package private(set) var digest: UInt64 = 0

    package init() {}

    package init<Keys: Sequence>(_ keys: Keys) where Keys.Element == String {
        for key in keys { insert(key) }
    }

    /// Adds one key; the digest is a wrapping sum of mixed hashes, so the order does not matter.
    package mutating func insert(_ key: String) {
        count += 1
        digest &+= StableHash.mix(StableHash.of(key))
    }

    package var digestText: String { String(digest, radix: 16) }

    /// A matrix run's key: its cell and run.
    package static func key(cell: TrialCell, run: Int) -> String { "\(Shard.key(of: cell))#\(run)" }

    /// A corpus row's key: its file, and its cell and run (none for a file's one unmeasured row).
    /// Names are written escaped (no raw newline), so the newline separates without ambiguity.
    package static func key(file: String, cell: TrialCell?, run: Int?) -> String {
        guard let cell, let run else { return file }
        return file + "\n" + key(cell: cell, run: run)
    }
}
