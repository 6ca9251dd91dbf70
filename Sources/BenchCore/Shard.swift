import Foundation

/// One of `count` parts of a piece of work (`--shard index/count`, 1-based so that a CI matrix
/// `1..n` is the shard list as written). An item belongs to the shard its stable hash picks
/// (`hash % count`, counted from 1): every item lands in exactly one of the `count` shards, on any
/// machine and in any process. Swift's `Hasher` is seeded per process and is never used for this.
package struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1 ... count.
    package let index: Int
    package let count: Int

    /// The most parts: far more machines than a CI matrix has (GitHub's: 256 jobs), and few enough
    /// that `bench merge` can list the parts 1...n.
    package static let maximumCount = 10_000

    /// The form `--shard` takes, said in every refusal.
    package static let usage =
        "--shard takes i/n with 1 <= i <= n, e.g. 2/4 (i counts from 1; n is at most \(maximumCount))"

    package init?(index: Int, count: Int) {
        guard (1...Self.maximumCount).contains(count), (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// "2/4": digits only, no sign, no spaces, no leading "+"; nil otherwise.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let index = Int(parts[0]), let count = Int(parts[1])
        else { return nil }
        self.init(index: index, count: count)
    }

    package var description: String { "\(index)/\(count)" }

    /// The shard (1 ... count) of an item whose stable hash is `hash`.
    package static func index(of hash: UInt64, count: Int) -> Int {
        Int(StableHash.mix(hash) % UInt64(count)) + 1
    }

    package func includes(hash: UInt64) -> Bool { Self.index(of: hash, count: count) == index }

    /// A matrix cell goes whole to one shard (all its runs on one machine), by its name.
    package func includes(_ cell: TrialCell) -> Bool { includes(hash: StableHash.of(Self.key(of: cell))) }

    /// "strategy/render/allocator": the cell's name for the hash, the same in every version.
    package static func key(of cell: TrialCell) -> String {
        "\(cell.strategy)/\(cell.render.rawValue)/\(cell.allocator.rawValue)"
    }
}

/// 64-bit FNV-1a over bytes: the same value on every machine, process and run, fed in pieces.
package struct StableHash: Sendable, Equatable {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    package mutating func combine<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    package mutating func combine(_ buffer: UnsafeRawBufferPointer) {
        var hash = value
        for byte in buffer {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        value = hash
    }

    /// The value as 16 hex digits: how a payload's digest is recorded and shown.
    package var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The digest of `data`, as recorded for a measured payload (`hex`).
    package static func digest(of data: Data) -> String {
        var hash = StableHash()
        data.withUnsafeBytes { hash.combine($0) }
        return hash.hex
    }

    package static func of(_ text: String) -> UInt64 {
        var hash = StableHash()
        hash.combine(text.utf8)
        return hash.value
    }

    /// FNV-1a's low bits follow its last bytes closely; the modulo of a small shard count wants
    /// every bit mixed in (splitmix64's finaliser).
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
