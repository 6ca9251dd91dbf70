import Synchronization

/// How many requests are in each stage now, counted by the server as requests move: in flight
/// (in the route: received, its answer not yet handed over), fetching, waiting for a render thread,
/// rendering, and writing the answer (`StageCountingHandler`). Atomics: every event-loop and pool
/// thread moves them.
package final class StageGauges: Sendable {
    private let inFlight = Atomic<Int>(0)
    private let fetching = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)
    private let rendering = Atomic<Int>(0)
    private let writing = Atomic<Int>(0)
    private let mostInFlight = Atomic<Int>(0)

    package init() {}

    package enum Stage: Sendable { case inFlight, fetching, waitingToRender, rendering, writing }

    package func enter(_ stage: Stage) {
        let now = add(1, to: stage)
        if stage == .inFlight { mostInFlight.raise(to: now) }
    }

    package func leave(_ stage: Stage) {
        add(-1, to: stage)
    }

    /// The most requests in flight at once since the last `restartMost()`.
    package var maxInFlight: Int { mostInFlight.load(ordering: .relaxed) }

    /// Starts the maximum again from the requests in flight now (the window's start).
    package func restartMost() {
        mostInFlight.store(inFlight.load(ordering: .relaxed), ordering: .relaxed)
    }

    package func read() -> StageCounts {
        StageCounts(
            inFlight: inFlight.load(ordering: .relaxed),
            fetching: fetching.load(ordering: .relaxed),
            waitingToRender: waiting.load(ordering: .relaxed),
            rendering: rendering.load(ordering: .relaxed),
            writing: writing.load(ordering: .relaxed)
        )
    }

    /// Atomics cannot be copied out of a switch: each case adds in place. Returns the new value.
    @discardableResult
    private func add(_ delta: Int, to stage: Stage) -> Int {
        switch stage {
        case .inFlight: return inFlight.wrappingAdd(delta, ordering: .relaxed).newValue
        case .fetching: return fetching.wrappingAdd(delta, ordering: .relaxed).newValue
        case .waitingToRender: return waiting.wrappingAdd(delta, ordering: .relaxed).newValue
        case .rendering: return rendering.wrappingAdd(delta, ordering: .relaxed).newValue
        case .writing: return writing.wrappingAdd(delta, ordering: .relaxed).newValue
        }
    }

}

/// The stage gauges at one moment.
package struct StageCounts: Codable, Sendable, Equatable {
    package var inFlight = 0
    package var fetching = 0
    package var waitingToRender = 0
    package var rendering = 0
    package var writing = 0

    package init(inFlight: Int = 0, fetching: Int = 0, waitingToRender: Int = 0, rendering: Int = 0, writing: Int = 0) {
        self.inFlight = inFlight
        self.fetching = fetching
        self.waitingToRender = waitingToRender
        self.rendering = rendering
        self.writing = writing
    }
}

extension Atomic where Value == Int {
    /// Stores `value` if it is above the one held (a maximum kept by many threads without a lock).
    func raise(to value: Value) {
        var seen = load(ordering: .relaxed)
        while value > seen {
            let (exchanged, original) = compareExchange(expected: seen, desired: value, ordering: .relaxed)
            if exchanged { return }
            seen = original
        }
    }
}
