import Synchronization

/// What the image server admits at once: requests whose predicted costs fit `budgetBytes`
/// (`--memory-budget`), or at most `workers` requests (`--workers`), or both. A request reserves its
/// whole predicted cost at once (the largest any of its phases holds) and keeps it until its answer
/// is sent: reserving the body first and the bitmap later would deadlock once bodies held the budget.
/// The rest wait in one FIFO queue of at most `queueLimit` (no request overtakes an earlier one, so a
/// large image is not starved by small ones); past it, a request is refused (503).
///
/// One lock over the state; waiters are continuations resumed outside it.
package final class AdmissionGate: Sendable {
    package struct Limits: Sendable, Equatable, Codable {
        package var budgetBytes: Int?
        package var workers: Int?
        package var queueLimit: Int

        package init(budgetBytes: Int?, workers: Int?, queueLimit: Int) {
            self.budgetBytes = budgetBytes
            self.workers = workers
            self.queueLimit = queueLimit
        }
    }

    /// Why a request was not admitted.
    package enum Refusal: Error, Equatable {
        /// The queue holds `queueLimit` requests already: 503 with Retry-After.
        case queueFull(limit: Int)
        /// Its predicted cost is more than the whole budget: it could never be admitted (413).
        case overBudget(costBytes: Int, budgetBytes: Int)
        /// It was cancelled (its client went away) while it waited.
        case cancelled
    }

    private struct Waiter {
        var id: Int
        var cost: Int
        var arrived: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var reservedBytes = 0
        var running = 0
        var waiting: [Waiter] = []
        var nextID = 0
        var statistics = AdmissionStatistics()
    }

    package let limits: Limits
    private let clock: @Sendable () -> UInt64
    private let state = Mutex(State())

    /// `clock`: nanoseconds, for the queue times.
    package init(limits: Limits, clock: @escaping @Sendable () -> UInt64) {
        self.limits = limits
        self.clock = clock
    }

    /// Waits until `costBytes` fits (FIFO), then reserves it: the reservation is given back when
    /// the returned value is released or goes away.
    package func admit(costBytes: Int) async throws -> Reservation {
        let cost = max(0, costBytes)
        if let budget = limits.budgetBytes, cost > budget {
            state.withLock { $0.statistics.rejectedOverBudget += 1 }
            throw Refusal.overBudget(costBytes: cost, budgetBytes: budget)
        }
        let arrived = clock()
        // nil: admitted at once; else the ticket it waits with.
        let ticket: Int? = try state.withLock { state in
            if state.waiting.isEmpty && fits(cost, in: state) {
                reserve(cost, waitedNanos: 0, in: &state)
                return nil
            }
            guard state.waiting.count < limits.queueLimit else {
                state.statistics.rejectedQueueFull += 1
                throw Refusal.queueFull(limit: limits.queueLimit)
            }
            state.nextID += 1
            return state.nextID
        }
        if let id = ticket {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let resumeNow: Bool = state.withLock { state in
                        if Task.isCancelled { return true }
                        state.waiting.append(Waiter(id: id, cost: cost, arrived: arrived, continuation: continuation))
                        state.statistics.mostQueued = max(state.statistics.mostQueued, state.waiting.count)
                        return false
                    }
                    if resumeNow { continuation.resume(throwing: Refusal.cancelled) }
                }
            } onCancel: {
                let waiter: Waiter? = state.withLock { state in
                    guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiting.remove(at: index)
                }
                waiter?.continuation.resume(throwing: Refusal.cancelled)
                // The head may have been blocking others that now fit.
                admitWaiting()
            }
        }
        return Reservation(gate: self, costBytes: cost)
    }

    /// Gives `costBytes` back and admits the waiting requests that now fit, in order.
    fileprivate func release(costBytes: Int) {
        state.withLock { state in
            state.reservedBytes -= costBytes
            state.running -= 1
        }
        admitWaiting()
    }

    private func admitWaiting() {
        let now = clock()
        let admitted: [Waiter] = state.withLock { state in
            var admitted: [Waiter] = []
            while let head = state.waiting.first, fits(head.cost, in: state) {
                state.waiting.removeFirst()
                reserve(head.cost, waitedNanos: now &- head.arrived, in: &state)
                admitted.append(head)
            }
            return admitted
        }
        for waiter in admitted { waiter.continuation.resume() }
    }

    private func fits(_ cost: Int, in state: State) -> Bool {
        if let workers = limits.workers, state.running >= workers { return false }
        if let budget = limits.budgetBytes, state.reservedBytes + cost > budget { return false }
        return true
    }

    private func reserve(_ cost: Int, waitedNanos: UInt64, in state: inout State) {
        state.reservedBytes += cost
        state.running += 1
        state.statistics.mostAdmitted = max(state.statistics.mostAdmitted, state.running)
        state.statistics.mostReservedBytes = max(state.statistics.mostReservedBytes, state.reservedBytes)
        state.statistics.queueNanos.append(waitedNanos)
    }

    /// The bytes reserved now, by the requests admitted and not yet answered.
    package var reservedBytes: Int { state.withLock { $0.reservedBytes } }

    package var statistics: AdmissionStatistics { state.withLock { $0.statistics } }

    /// Starts the statistics again (the window's start): the maxima from what is admitted and queued now.
    package func restartStatistics() {
        state.withLock { state in
            state.statistics = AdmissionStatistics()
            state.statistics.mostAdmitted = state.running
            state.statistics.mostQueued = state.waiting.count
            state.statistics.mostReservedBytes = state.reservedBytes
        }
    }
}

/// A request's admitted cost, given back once: by `release()`, or when the last reference goes
/// (the answer sent, or dropped with its connection), whichever comes first.
package final class Reservation: Sendable {
    private let gate: AdmissionGate?
    package let costBytes: Int
    private let released = Atomic<Bool>(false)

    fileprivate init(gate: AdmissionGate, costBytes: Int) {
        self.gate = gate
        self.costBytes = costBytes
    }

    /// A reservation of nothing, for a server without a gate.
    package init() {
        gate = nil
        costBytes = 0
    }

    package func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        gate?.release(costBytes: costBytes)
    }

    deinit { release() }
}

/// What the gate did over a window.
package struct AdmissionStatistics: Codable, Sendable, Equatable {
    /// The most requests admitted at once.
    package var mostAdmitted = 0
    /// The most requests waiting in the queue at once.
    package var mostQueued = 0
    /// The most bytes reserved at once.
    package var mostReservedBytes = 0
    /// Refused with 503: the queue was full.
    package var rejectedQueueFull = 0
    /// Refused with 413: the predicted cost was more than the whole budget.
    package var rejectedOverBudget = 0
    /// Each admitted request's time in the queue (0 when admitted at once), in nanoseconds.
    package var queueNanos: [UInt64] = []

    package init() {}
}
