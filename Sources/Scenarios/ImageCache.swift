import Foundation

/// A thread-safe cache that keeps its total cost at or under `costLimit`, evicting the least
/// recently used entries first. Foundation's NSCache on Linux evicts the cheapest entries
/// first and only inside setObject (see ARTICLE.md), so decoded images get this instead.
public final class CostLimitedCache<Key: Hashable, Value>: @unchecked Sendable {
    public let costLimit: Int
    private let lock = NSLock()
    private var entries: [Key: (value: Value, cost: Int, lastUse: UInt64)] = [:]
    private var useClock: UInt64 = 0
    private var cost = 0
    private var evicted = 0

    /// - Parameter costLimit: the most the entries may cost together, in bytes.
    public init(costLimit: Int) {
        precondition(costLimit >= 0, "a cost limit cannot be negative")
        self.costLimit = costLimit
    }

    public func value(for key: Key) -> Value? {
        lock.withLock {
            guard var entry = entries[key] else { return nil }
            useClock += 1
            entry.lastUse = useClock
            entries[key] = entry
            return entry.value
        }
    }

    /// Stores `value`, then evicts least recently used entries until the total fits.
    /// A value that costs more than the whole limit is not stored.
    public func insert(_ value: Value, for key: Key, cost: Int) {
        lock.withLock {
            if let old = entries.removeValue(forKey: key) { self.cost -= old.cost }
            guard cost <= costLimit else { return }
            useClock += 1
            entries[key] = (value, cost, useClock)
            self.cost += cost
            // Linear scan per eviction: a list shows tens of images, not thousands.
            while self.cost > costLimit, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                entries.removeValue(forKey: oldest.key)
                self.cost -= oldest.value.cost
                evicted += 1
            }
        }
    }

    public var totalCost: Int { lock.withLock { cost } }
    public var count: Int { lock.withLock { entries.count } }
    public var evictionCount: Int { lock.withLock { evicted } }
}
