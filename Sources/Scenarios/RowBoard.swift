import Foundation
import Imaging
import Probe

/// The rows of the simulated list: which are on screen, the images they show, when each got
/// its image, and the decoded-image cache rows are filled from. Thread-safe: images arrive
/// from the loader's queues while the scroll loop moves the window.
final class RowBoard: @unchecked Sendable {
    struct CacheKey: Hashable {
        var url: URL
        /// The target size: the thumbnail's maximum pixel size, 0 for full images.
        var size: Int
    }

    private let lock = NSLock()
    private let cache: CostLimitedCache<CacheKey, DecodedImage>?
    private let cacheKeySize: Int
    private var urls: [Int: URL] = [:]
    private var enteredAt: [Int: UInt64] = [:]
    /// Rows on screen that have their image (nil for render `none`), i.e. what the screen keeps alive.
    private var shown: [Int: DecodedImage?] = [:]
    private var timesToImage: [UInt64] = []
    private var entered = 0
    private var cacheHits = 0
    private var fallbacks = 0

    init(cache: CostLimitedCache<CacheKey, DecodedImage>?, cacheKeySize: Int) {
        self.cache = cache
        self.cacheKeySize = cacheKeySize
    }

    /// A row scrolled into view; returns true when the cache already had its image.
    func enter(_ row: Int, url: URL) -> Bool {
        let cached = cache?.value(for: CacheKey(url: url, size: cacheKeySize))
        return lock.withLock {
            entered += 1
            urls[row] = url
            enteredAt[row] = MonotonicClock.now()
            guard let cached else { return false }
            cacheHits += 1
            shown[row] = .some(cached)
            timesToImage.append(0)
            return true
        }
    }

    /// A row scrolled out of view: the screen lets go of its image (the cache may keep it).
    func leave(_ row: Int) {
        lock.withLock {
            enteredAt[row] = nil
            shown[row] = nil
            urls[row] = nil
        }
    }

    /// The row's image, or its failure: then it shows a placeholder, which counts as shown
    /// (the user sees the row settle) but not in the time to image.
    func deliver(row: Int, result: Result<DecodedImage?, Error>) {
        let image = try? result.get()
        let url: URL? = lock.withLock {
            guard let entered = enteredAt[row], shown[row] == nil else { return nil }
            shown[row] = .some(image)
            if image == nil, case .failure = result {
                fallbacks += 1
                return nil
            }
            timesToImage.append(MonotonicClock.now() - entered)
            return urls[row]
        }
        if let url, let image { cache?.insert(image, for: CacheKey(url: url, size: cacheKeySize), cost: image.byteCount) }
    }

    func allShown(_ rows: Set<Int>) -> Bool {
        lock.withLock { rows.allSatisfy { shown[$0] != nil } }
    }

    func report(into result: inout ScrollResult) {
        lock.withLock {
            result.rowsEntered = entered
            result.rowsShown = timesToImage.count
            result.cacheHits = cacheHits
            result.rowsFallback = fallbacks
            let sorted = timesToImage.sorted()
            if !sorted.isEmpty {
                let middle = sorted.count / 2
                let median = sorted.count % 2 == 1 ? Double(sorted[middle]) : (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
                result.timeToImageMedianMillis = median / 1e6
                result.timeToImageMaxMillis = Double(sorted.last!) / 1e6
            }
        }
        result.cacheEvictions = cache?.evictionCount ?? 0
        result.cacheFinalBytes = cache?.totalCost ?? 0
    }
}
