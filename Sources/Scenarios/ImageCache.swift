import Foundation
import Synchronization

/// A thread-safe cache that keeps its total cost at or under `costLimit`, evicting the least
/// recently used entries first. Foundation's NSCache on Linux evicts the cheapest entries
/// first and only inside setObject (docs/SCENARIO.md), so decoded images get this instead.
package final class CostLimitedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    package let costLimit: Int
    private struct State {
        var entries: [Key: (value: Value, cost: Int, lastUse: UInt64)] = [:]
        var useClock: UInt64 = 0
        var cost = 0
        var evicted = 0
    }
    private let state = Mutex(State())

    /// - Parameter costLimit: the most the entries may cost together, in bytes.
    package init(costLimit: Int) {
        precondition(costLimit >= 0, "a cost limit cannot be negative")
        self.costLimit = costLimit
    }

    package func value(for key: Key) -> Value? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.useClock += 1
            entry.lastUse = state.useClock
            state.entries[key] = entry
            return entry.value
        }
    }

    /// Stores `value`, then evicts least recently used entries until the total fits.
    /// A value that costs more than the whole limit is not stored.
    package func insert(_ value: Value, for key: Key, cost: Int) {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.cost -= old.cost }
            guard cost <= costLimit else { return }
            state.useClock += 1
            state.entries[key] = (value, cost, state.useClock)
            state.cost += cost
            // Linear scan per eviction: a list shows tens of images, not thousands.
            while state.cost > costLimit, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries.removeValue(forKey: oldest.key)
                state.cost -= oldest.value.cost
                state.evicted += 1
            }
        }
    }

    package var totalCost: Int { state.withLock { $0.cost } }
    package var count: Int { state.withLock { $0.entries.count } }
    package var evictionCount: Int { state.withLock { $0.evicted } }
}
