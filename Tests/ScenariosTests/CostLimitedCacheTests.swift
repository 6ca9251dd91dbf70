import Foundation
import Imaging
import Probe
import Scenarios
import Testing

@Suite(.serialized) struct CostLimitedCacheTests {
    @Test func totalCostNeverExceedsTheLimit() {
        let cache = CostLimitedCache<Int, String>(costLimit: 1000)
        for key in 0..<50 {
            cache.insert("v\(key)", for: key, cost: 90 + key % 7 * 20)
            #expect(cache.totalCost <= 1000)
        }
        #expect(cache.evictionCount > 0)
    }

    @Test func evictsTheLeastRecentlyUsedEntry() {
        let cache = CostLimitedCache<String, Int>(costLimit: 300)
        cache.insert(1, for: "a", cost: 100)
        cache.insert(2, for: "b", cost: 100)
        cache.insert(3, for: "c", cost: 100)
        #expect(cache.value(for: "a") == 1)  // a is now more recent than b
        cache.insert(4, for: "d", cost: 100)
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "d") == 4)
    }

    /// Why the scenario does not use NSCache: on Linux it keeps under its cost limit (inside
    /// setObject) by evicting the cheapest entries first, so a big, old image survives while the
    /// thumbnail just inserted goes.
    @Test func nsCacheOnLinuxEvictsByCostNotByRecency() {
        let cache = NSCache<NSString, NSNumber>()
        cache.totalCostLimit = 250
        cache.setObject(1, forKey: "big-and-old", cost: 200)
        cache.setObject(2, forKey: "small", cost: 50)
        _ = cache.object(forKey: "small")
        cache.setObject(3, forKey: "small-newest", cost: 50)
        let ours = CostLimitedCache<String, Int>(costLimit: 250)
        ours.insert(1, for: "big-and-old", cost: 200)
        ours.insert(2, for: "small", cost: 50)
        _ = ours.value(for: "small")
        ours.insert(3, for: "small-newest", cost: 50)

        #expect(ours.value(for: "big-and-old") == nil, "LRU drops the oldest entry")
        #expect(ours.value(for: "small-newest") != nil)
        #if os(Linux)
        let kept = ["big-and-old": 200, "small": 50, "small-newest": 50].filter {
            cache.object(forKey: $0.key as NSString) != nil
        }
        #expect(kept.values.reduce(0, +) <= 250, "NSCache honours its cost limit inside setObject")
        #expect(kept["big-and-old"] != nil, "NSCache kept the old, expensive entry")
        #expect(kept["small-newest"] == nil, "NSCache dropped a cheap entry, here the one just inserted")
        #endif
    }

    /// With a limit of L bytes of decoded images, the heap the cache retains stays under L
    /// plus the bookkeeping overhead, which is measured here.
    @Test func retainedHeapStaysUnderTheLimitPlusOverhead() throws {
        let heap = try HeapCounters(expecting: .system)
        let jpeg = try JPEGEncoder.encodeRGB(width: 160, height: 120, quality: 80, progressive: false) { y, row in
            for x in 0..<160 * 3 { row[x] = UInt8(truncatingIfNeeded: x &+ y) }
        }
        let limit = 1_000_000  // room for 13 images of 76,800 bytes
        let before = heap.read().allocated
        var cache: CostLimitedCache<Int, DecodedImage>? = CostLimitedCache(costLimit: limit)
        for key in 0..<60 {
            let image = try JPEGDecoder.decodeFull(.memory(jpeg))
            cache!.insert(image, for: key, cost: image.byteCount)
        }
        let retained = heap.read().allocated - before
        let overhead = retained - cache!.totalCost
        print(
            "cache of \(cache!.count) images: \(cache!.totalCost) bytes of pixels, \(retained) bytes retained, overhead \(overhead) bytes"
        )
        #expect(cache!.totalCost <= limit)
        #expect(cache!.evictionCount > 0)
        #expect(retained <= limit + 64 * 1024, "retained heap beyond the limit plus 64 KiB of bookkeeping")
        cache = nil
        #expect(heap.read().allocated - before < retained, "dropping the cache gives the images back")
    }
}
