import BenchCore
import Scenarios
import Testing

/// `bench compare` of two image-server runs, on fitted slopes: the logic alone, from points.
struct ServerGateTests {
    static let thresholds = GateThresholds(
        significanceLevel: 0.005,
        cvWarningPercent: 10,
        metrics: [
            .peakAllocatedDelta: Tolerance(absoluteBytes: 2_000_000, relativePercent: 5),
            .peakRSSDelta: Tolerance(absoluteBytes: 2_000_000, relativePercent: 5),
        ]
    )

    /// Runs at C = 1, 4, 16, three each, whose heap and RSS grow `perRequest` a request in flight,
    /// each run off the line by `noise` (alternating sign): the interval's width.
    static func points(perRequest: Int, noise: Int = 100_000, strategy: String = "data") -> [ServerPoint] {
        [1, 4, 16].flatMap { inFlight in
            (0..<3).map { run in
                let offset = (run - 1) * noise
                return ServerPoint(
                    strategy: strategy,
                    render: "full",
                    allocator: "system",
                    renderThreads: "unbounded",
                    concurrency: inFlight,
                    inFlightAtPeak: inFlight,
                    maxInFlight: inFlight,
                    heapDeltaBytes: 5_000_000 + inFlight * perRequest + offset,
                    peakRSSBytes: 50_000_000 + inFlight * perRequest + offset,
                    floorBytes: nil
                )
            }
        }
    }

    static func verdicts(_ gate: ServerGate) -> [ServerGate.Verdict] { gate.lines.map(\.verdict) }

    /// The same slopes pass; a slope 10% steeper with narrow intervals regresses (exit 2), and 10%
    /// shallower is an improvement that passes.
    @Test func aSteeperSlopeRegressesAndAShallowerOneImproves() {
        let same = ServerGate(
            baseline: Self.points(perRequest: 100_000_000),
            current: Self.points(perRequest: 100_000_000),
            thresholds: Self.thresholds
        )
        #expect(Self.verdicts(same) == [.ok, .ok])
        #expect(same.exitCode == .success)
        let steeper = ServerGate(
            baseline: Self.points(perRequest: 100_000_000),
            current: Self.points(perRequest: 110_000_000),
            thresholds: Self.thresholds
        )
        #expect(Self.verdicts(steeper) == [.regression, .regression])
        #expect(steeper.exitCode == .regression)
        let shallower = ServerGate(
            baseline: Self.points(perRequest: 100_000_000),
            current: Self.points(perRequest: 90_000_000),
            thresholds: Self.thresholds
        )
        #expect(Self.verdicts(shallower) == [.improvement, .improvement])
        #expect(shallower.exitCode == .success)
    }

    /// Growth within the tolerance (4% of the slope, under its 5%) passes; growth past it whose
    /// interval overlaps the baseline's (noisy runs) is unconfirmed and passes too.
    @Test func growthWithinToleranceOrWithinNoisePasses() {
        let within = ServerGate(
            baseline: Self.points(perRequest: 100_000_000),
            current: Self.points(perRequest: 104_000_000),
            thresholds: Self.thresholds
        )
        #expect(Self.verdicts(within) == [.ok, .ok])
        let noisy = ServerGate(
            baseline: Self.points(perRequest: 100_000_000, noise: 60_000_000),
            current: Self.points(perRequest: 110_000_000, noise: 60_000_000),
            thresholds: Self.thresholds
        )
        #expect(Self.verdicts(noisy) == [.unconfirmed, .unconfirmed])
        #expect(noisy.exitCode == .success)
    }

    /// A baseline cell the current run lacks fails the comparison (exit 3); a baseline with too few
    /// runs for a slope has nothing to compare (exit 5).
    @Test func missingCellsAndMissingBaselines() {
        let missing = ServerGate(
            baseline: Self.points(perRequest: 100_000_000),
            current: Self.points(perRequest: 100_000_000, strategy: "download"),
            thresholds: Self.thresholds
        )
        #expect(Self.verdicts(missing) == [.missing, .missing])
        #expect(missing.exitCode == .runFailed)
        let single = Array(Self.points(perRequest: 100_000_000).prefix(1))
        let none = ServerGate(
            baseline: single,
            current: Self.points(perRequest: 100_000_000),
            thresholds: Self.thresholds
        )
        #expect(Self.verdicts(none) == [.noBaseline, .noBaseline])
        #expect(none.exitCode == .noBaseline)
    }
}
