import XCTest
@testable import Scenarios

final class CostLimitedCacheTests: XCTestCase {
    func testTotalCostNeverExceedsTheLimit() {
        let cache = CostLimitedCache<Int, String>(costLimit: 1000)
        for key in 0..<50 {
            cache.insert("v\(key)", for: key, cost: 90 + key % 7 * 20)
            XCTAssertLessThanOrEqual(cache.totalCost, 1000)
        }
        XCTAssertGreaterThan(cache.evictionCount, 0)
    }
}
