import BenchCore
import Testing

/// `Shard`: the strict i/n form, and a split that covers every item exactly once, the same way in
/// every process.
struct ShardTests {
    @Test func theFormIsStrict() {
        for (text, index, count) in [("1/1", 1, 1), ("2/4", 2, 4), ("4/4", 4, 4), ("10/12", 10, 12)] {
            #expect(Shard(text) == Shard(index: index, count: count) && Shard(text)?.description == text, "\(text)")
        }
        for text in [
            "0/4", "5/4", "1/0", "0/0", "-1/4", "1/-4", "2/", "/4", "/", "2/4/1", "a/b", "2:4", " 2/4", "2/4 ",
            "+2/4", "", "2", "२/४", "1/9999999999", "0x1/4",
        ] {
            #expect(Shard(text) == nil, "'\(text)' is refused")
        }
        #expect(
            Shard(index: 0, count: 1) == nil && Shard(index: 2, count: 1) == nil && Shard(index: 1, count: 0) == nil
        )
    }

    /// n is at most Shard.maximumCount: `bench merge` lists the shards 1...n, and n = 999999999 (nine
    /// digits, accepted before) made it allocate gigabytes and abort.
    @Test func theCountIsBounded() {
        #expect(Shard("10000/10000") == Shard(index: 10000, count: 10000) && Shard("1/10000") != nil)
        for text in ["1/10001", "1/999999999", "10001/10001"] { #expect(Shard(text) == nil, "'\(text)' is refused") }
        #expect(Shard.usage.contains("10000"), "the refusal names the bound: \(Shard.usage)")
    }

    /// FNV-1a 64's published values: the hash is the same in every process (Swift's Hasher is not).
    @Test func theHashIsFNV1a() {
        #expect(StableHash.of("") == 0xcbf2_9ce4_8422_2325)
        #expect(StableHash.of("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(StableHash.of("foobar") == 0x8594_4171_f739_67e8)
        var pieces = StableHash()
        pieces.combine(Array("foo".utf8))
        pieces.combine(Array("bar".utf8))
        #expect(pieces.value == StableHash.of("foobar"), "fed in pieces, the same")
    }

    @Test func everyItemIsInExactlyOneShard() {
        for count in 1...9 {
            let shards = (1...count).map { Shard(index: $0, count: count)! }
            var sizes = [Int](repeating: 0, count: count)
            for item in 0..<3000 {
                let hash = StableHash.of("photos/\(item).jpg")
                let holders = shards.filter { $0.includes(hash: hash) }
                #expect(holders.count == 1, "item \(item) of \(count) shards: \(holders)")
                if let holder = holders.first {
                    #expect(holder.index == Shard.index(of: hash, count: count))
                    sizes[holder.index - 1] += 1
                }
            }
            // Balanced: every shard within 25% of an even share (3000 items, so far from chance).
            let even = 3000.0 / Double(count)
            #expect(
                sizes.allSatisfy { Double($0) > even * 0.75 && Double($0) < even * 1.25 },
                "\(count) shards: \(sizes)"
            )
        }
    }

    @Test func everyCellIsInExactlyOneShard() {
        let cells = ["data", "download", "curl-file", "data-stream", "combine", "s1", "s2"].flatMap { strategy in
            [RenderMode.none, .full, .thumbnail].flatMap { render in
                Allocator.allCases.map { TrialCell(strategy: strategy, render: render, allocator: $0) }
            }
        }
        for count in 1...6 {
            for cell in cells {
                let holders = (1...count).filter { Shard(index: $0, count: count)!.includes(cell) }
                #expect(holders.count == 1, "\(cell) in \(count) shards: \(holders)")
            }
        }
        #expect(Shard.key(of: TrialCell(strategy: "data", render: .full, allocator: .jemalloc)) == "data/full/jemalloc")
    }
}
