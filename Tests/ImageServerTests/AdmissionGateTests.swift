import ImageServer
import Synchronization
import Testing

/// The admission gate's rules, in process (no child, no socket): a request is admitted only while
/// its cost fits what is left of the budget and the workers allow it, in arrival order; the queue is
/// bounded; a cost over the whole budget is refused; a reservation is given back once.
@Suite struct AdmissionGateTests {
    static let mib = 1 << 20

    func gate(budget: Int? = nil, workers: Int? = nil, queue: Int = 8) -> AdmissionGate {
        let ticks = Atomic<UInt64>(0)
        return AdmissionGate(limits: .init(budgetBytes: budget, workers: workers, queueLimit: queue)) {
            ticks.wrappingAdd(1_000, ordering: .relaxed).newValue
        }
    }

    /// Waits (bounded) until `condition` holds: a task's arrival at the gate is asynchronous.
    func eventually(_ condition: () -> Bool) async {
        for _ in 0..<2_000 where !condition() { try? await Task.sleep(nanoseconds: 1_000_000) }
    }

    /// What is reserved never passes the budget: the third of three 40 MiB requests under 100 MiB
    /// waits until one is released, and is then admitted with its whole cost.
    @Test func theBudgetBoundsWhatIsReserved() async throws {
        let gate = gate(budget: 100 * Self.mib)
        let first = try await gate.admit(costBytes: 40 * Self.mib)
        let second = try await gate.admit(costBytes: 40 * Self.mib)
        let third = Task { try await gate.admit(costBytes: 40 * Self.mib) }
        await eventually { gate.statistics.mostQueued == 1 }
        #expect(gate.reservedBytes == 80 * Self.mib)
        #expect(gate.statistics.mostQueued == 1)
        first.release()
        let admitted = try await third.value
        #expect(gate.reservedBytes == 80 * Self.mib)
        #expect(gate.statistics.mostReservedBytes == 80 * Self.mib)
        #expect(gate.statistics.mostAdmitted == 2)
        second.release()
        admitted.release()
        #expect(gate.reservedBytes == 0)
    }

    /// First come, first admitted: a large request at the head is not overtaken by small ones that
    /// would fit now, so it is never starved.
    @Test func aLargeRequestAtTheHeadIsNotOvertaken() async throws {
        let gate = gate(budget: 100 * Self.mib)
        let held = try await gate.admit(costBytes: 60 * Self.mib)
        let order = Order()
        let large = Task {
            let reservation = try await gate.admit(costBytes: 90 * Self.mib)
            order.append("large")
            reservation.release()
        }
        await eventually { gate.statistics.mostQueued == 1 }
        let small = Task {
            let reservation = try await gate.admit(costBytes: 10 * Self.mib)
            order.append("small")
            reservation.release()
        }
        await eventually { gate.statistics.mostQueued == 2 }
        #expect(order.names.isEmpty, "10 MiB fit beside the 60 held, but the 90 MiB came first")
        held.release()
        try await large.value
        try await small.value
        #expect(order.names == ["large", "small"])
    }

    /// `--workers`: a count, whatever the costs.
    @Test func workersBoundTheCount() async throws {
        let gate = gate(workers: 2)
        let first = try await gate.admit(costBytes: 0)
        let second = try await gate.admit(costBytes: 0)
        let third = Task { try await gate.admit(costBytes: 0) }
        await eventually { gate.statistics.mostQueued == 1 }
        #expect(gate.statistics.mostAdmitted == 2)
        second.release()
        try await third.value.release()
        first.release()
        #expect(gate.statistics.mostAdmitted == 2)
        #expect(gate.statistics.queueNanos.count == 3)
        #expect(gate.statistics.queueNanos.filter { $0 > 0 }.count == 1, "only the third waited")
    }

    /// Past the queue's length a request is refused at once (503), and one that costs more than
    /// the whole budget is refused (413) rather than admitted alone; both are counted.
    @Test func aFullQueueAndAnOversizedCostAreRefused() async throws {
        let gate = gate(budget: 10 * Self.mib, queue: 1)
        let held = try await gate.admit(costBytes: 10 * Self.mib)
        let waiting = Task { try await gate.admit(costBytes: Self.mib) }
        await eventually { gate.statistics.mostQueued == 1 }
        await #expect(throws: AdmissionGate.Refusal.queueFull(limit: 1)) {
            try await gate.admit(costBytes: Self.mib)
        }
        await #expect(throws: AdmissionGate.Refusal.overBudget(costBytes: 11 * Self.mib, budgetBytes: 10 * Self.mib)) {
            try await gate.admit(costBytes: 11 * Self.mib)
        }
        #expect(gate.statistics.rejectedQueueFull == 1)
        #expect(gate.statistics.rejectedOverBudget == 1)
        held.release()
        try await waiting.value.release()
        #expect(gate.reservedBytes == 0)
    }

    /// A waiting request whose task is cancelled (its client gone) leaves the queue, and the one
    /// behind it moves up; nothing stays reserved.
    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let gate = gate(budget: 10 * Self.mib)
        let held = try await gate.admit(costBytes: 8 * Self.mib)
        let cancelled = Task { try await gate.admit(costBytes: 8 * Self.mib) }
        await eventually { gate.statistics.mostQueued == 1 }
        let behind = Task { try await gate.admit(costBytes: 2 * Self.mib) }
        await eventually { gate.statistics.mostQueued == 2 }
        cancelled.cancel()
        await #expect(throws: AdmissionGate.Refusal.cancelled) { try await cancelled.value }
        // The 2 MiB fits beside the 8 held once the head is gone.
        let admitted = try await behind.value
        #expect(gate.reservedBytes == 10 * Self.mib)
        admitted.release()
        held.release()
        #expect(gate.reservedBytes == 0)
    }

    /// A reservation is given back once: released by hand, then dropped, it is not counted twice;
    /// one never released is given back when it goes (its answer dropped with its connection).
    @Test func aReservationIsGivenBackOnce() async throws {
        let gate = gate(budget: 10 * Self.mib)
        var reservation: Reservation? = try await gate.admit(costBytes: 4 * Self.mib)
        reservation?.release()
        reservation?.release()
        reservation = nil
        #expect(gate.reservedBytes == 0)
        _ = try await gate.admit(costBytes: 4 * Self.mib)  // dropped at once
        #expect(gate.reservedBytes == 0)
        let kept = try await gate.admit(costBytes: 4 * Self.mib)
        #expect(gate.reservedBytes == 4 * Self.mib)
        withExtendedLifetime(kept) {}
    }
}

/// The order requests were admitted in, appended from their tasks.
final class Order: Sendable {
    private let state = Mutex<[String]>([])
    func append(_ name: String) { state.withLock { $0.append(name) } }
    var names: [String] { state.withLock { $0 } }
}
