import BenchCore

/// How often the memory gate flags a bimodal cell that did not change (a false alarm), by simulation.
///
/// The heap peak of data+full is bimodal: in some runs a 16 MiB buffer of the fetch is still alive
/// while the bitmap is decoded (~16.8 MB higher). If the current runs land in the high mode more often
/// than the baseline's, the median jumps past the allowance. The simulation draws gates from that
/// mixture, fitted to a baseline, and judges each with the gate's own rule (`GateRule`) at each level.
///
/// The model, per allocator: a run's value is one of the baseline's low-mode values (drawn with
/// replacement, so page and byte ties are kept) plus 16.8 MB with probability q, where q is the
/// high-mode rate observed in the baseline (at least 1 in 10, so that a mode the baseline did not
/// catch is still exercised). Deterministic: a seeded generator.
package struct GateSimulation: Sendable {
    /// The step between the two modes.
    package static let highModeBytes = 16_800_000.0
    /// The cell whose heap peak is bimodal.
    package static let strategy = "data"
    package static let render = RenderMode.full

    package struct Outcome: Sendable, Equatable {
        package var allocator: Allocator
        /// Baseline runs in the high mode, of all of the cell's baseline runs.
        package var highRuns: Int
        package var baselineRuns: Int
        /// The high-mode probability every simulated run has.
        package var rate: Double
        package var currentRuns: Int
        package var gates: Int
        /// Gates judged a regression, by significance level.
        package var flagged: [Double: Int]

        /// The share of gates flagged at `level`, in percent.
        package func percentFlagged(at level: Double) -> Double {
            Double(flagged[level] ?? 0) / Double(gates) * 100
        }
    }

    package var gates = 20_000
    package var currentRuns = 5
    /// The high-mode rate instead of the baseline's (then at least 0.1 is not imposed).
    package var rate: Double?
    package var levels: [Double] = [0.05, 0.005]
    package var seed: UInt64 = 11

    package init() {}

    /// One outcome per allocator with runs of the cell in `baseline`, in Allocator order.
    package func run(baseline: [TrialResult], tolerance: Tolerance) -> [Outcome] {
        var generator = SplitMix64(seed: seed)
        return Allocator.allCases.compactMap { allocator in
            let values = baseline.filter {
                $0.isSuccess && $0.cell == TrialCell(strategy: Self.strategy, render: Self.render, allocator: allocator)
            }
            .compactMap { GateMetric.peakAllocatedDelta.value(of: $0) }.map(Double.init)
            guard let median = Distribution(values)?.median else { return nil }
            let low = values.filter { $0 < median + Self.highModeBytes / 2 }
            let q = rate ?? max(Double(values.count - low.count) / Double(values.count), 0.1)
            func draw() -> Double {
                low.randomElement(using: &generator)!
                    + (Double.random(in: 0..<1, using: &generator) < q ? Self.highModeBytes : 0)
            }
            var flagged = Dictionary(uniqueKeysWithValues: levels.map { ($0, 0) })
            for _ in 0..<gates {
                let baselineDraw = values.map { _ in draw() }
                let currentDraw = (0..<currentRuns).map { _ in draw() }
                guard let rule = GateRule(baseline: baselineDraw, current: currentDraw, tolerance: tolerance) else {
                    continue
                }
                for level in levels where rule.verdict(at: level) == .regression { flagged[level, default: 0] += 1 }
            }
            return Outcome(
                allocator: allocator,
                highRuns: values.count - low.count,
                baselineRuns: values.count,
                rate: q,
                currentRuns: currentRuns,
                gates: gates,
                flagged: flagged
            )
        }
    }
}

/// Sebastiano Vigna's SplitMix64: a small generator whose sequence depends only on its seed, so that
/// the simulation's figures can be reproduced (the system generator cannot be seeded).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
