import Foundation
import Imaging
import Probe
import Synchronization

/// The rows of the simulated list: which are on screen, the images they show, when each got
/// its image, and the decoded-image cache rows are filled from. Thread-safe: images arrive
/// from the loader's queues while the scroll loop moves the window.
final class RowBoard: Sendable {
    struct CacheKey: Hashable {
        var url: URL
        /// The target size: the thumbnail's maximum pixel size, 0 for full images.
        var size: Int
    }

    private let cache: CostLimitedCache<CacheKey, DecodedImage>?
    private let cacheKeySize: Int
    private struct State {
        var urls: [Int: URL] = [:]
        var enteredAt: [Int: UInt64] = [:]
        /// Rows on screen that have their image (nil for render `none`), i.e. what the screen keeps alive.
        var shown: [Int: DecodedImage?] = [:]
        var timesToImage: [UInt64] = []
        var entered = 0
        var cacheHits = 0
        var fallbacks = 0
    }
    private let state = Mutex(State())

    init(cache: CostLimitedCache<CacheKey, DecodedImage>?, cacheKeySize: Int) {
        self.cache = cache
        self.cacheKeySize = cacheKeySize
    }

    /// A row scrolled into view; returns true when the cache already had its image.
    func enter(_ row: Int, url: URL) -> Bool {
        let cached = cache?.value(for: CacheKey(url: url, size: cacheKeySize))
        return state.withLock { state in
            state.entered += 1
            state.urls[row] = url
            state.enteredAt[row] = MonotonicClock.now()
            guard let cached else { return false }
            state.cacheHits += 1
            state.shown[row] = .some(cached)
            state.timesToImage.append(0)
            return true
        }
    }

    /// A row scrolled out of view: the screen lets go of its image (the cache may keep it).
    func leave(_ row: Int) {
        state.withLock { state in
            state.enteredAt[row] = nil
            state.shown[row] = nil
            state.urls[row] = nil
        }
    }

    /// The row's image, or its failure: then it shows a placeholder, which counts as shown
    /// (the user sees the row settle) but not in the time to image.
    func deliver(row: Int, result: Result<DecodedImage?, Error>) {
        let image = try? result.get()
        let url: URL? = state.withLock { state in
            guard let entered = state.enteredAt[row], state.shown[row] == nil else { return nil }
            state.shown[row] = .some(image)
            if image == nil, case .failure = result {
                state.fallbacks += 1
                return nil
            }
            state.timesToImage.append(MonotonicClock.now() - entered)
            return state.urls[row]
        }
        if let url, let image {
            cache?.insert(image, for: CacheKey(url: url, size: cacheKeySize), cost: image.byteCount)
        }
    }

    func allShown(_ rows: Set<Int>) -> Bool {
        state.withLock { state in rows.allSatisfy { state.shown[$0] != nil } }
    }

    func report(into result: inout ScrollResult) {
        let state = self.state.withLock { $0 }
        do {
            result.rowsEntered = state.entered
            result.rowsShown = state.timesToImage.count
            result.cacheHits = state.cacheHits
            result.rowsFallback = state.fallbacks
            let sorted = state.timesToImage.sorted()
            if !sorted.isEmpty {
                let middle = sorted.count / 2
                let median =
                    sorted.count % 2 == 1
                    ? Double(sorted[middle]) : (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
                result.timeToImageMedianMillis = median / 1e6
                result.timeToImageMaxMillis = Double(sorted.last!) / 1e6
            }
        }
        result.cacheEvictions = cache?.evictionCount ?? 0
        result.cacheFinalBytes = cache?.totalCost ?? 0
    }
}
