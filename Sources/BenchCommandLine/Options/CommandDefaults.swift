import BenchCore
import Harness

// The shared options are declared once (StrategyOption, RenderOption, AllocatorOption, RunsOption,
// DecodeLimitOptions, OutFolderOption); a command that includes one says, through these
// requirements, the defaults that are its own and why they differ, which the option's help shows.

/// `--strategy`'s default, and whether calibration strategies are measured.
protocol StrategyDefaults {
    /// Measured when --strategy is not given.
    static var defaultStrategies: [String] { get }
    /// The default and why, as the help says it.
    static var strategyDefaultHelp: String { get }
    /// Only `run` measures the calibration strategies (they check the probe, not a loader).
    static var takesCalibrationStrategies: Bool { get }
}

/// `--render`'s default.
protocol RenderDefaults {
    static var defaultRenders: [RenderMode] { get }
    static var renderDefaultHelp: String { get }
}

/// `--allocator`'s default.
protocol AllocatorDefaults {
    static var defaultAllocators: [Allocator] { get }
    static var allocatorDefaultHelp: String { get }
}

/// `--runs`: what one run is in this command, its default and why, and the most it takes.
protocol RunsDefaults {
    static var defaultRuns: Int { get }
    static var maximumRuns: Int { get }
    /// "Runs per cell", "Runs of each combination", ...
    static var runsMeaning: String { get }
    static var runsDefaultWhy: String { get }
}

/// The whole matrix: strategies x renderers x allocators, and runs of each.
typealias MatrixDefaults = StrategyDefaults & RenderDefaults & AllocatorDefaults & RunsDefaults

/// `--max-pixel`'s default (DecodeLimitOptions says why each), and what becomes of an image over
/// `--max-image-pixels`.
protocol DecodeLimitDefaults {
    static var defaultMaxPixel: Int { get }
    static var overDecodeBudget: String { get }
}

/// What `--out` names in this command.
protocol OutDefaults {
    static var outHelp: String { get }
    /// What an empty --out should have been, for its error.
    static var outInstead: String { get }
}

extension OutDefaults {
    static var outInstead: String { "a folder (or no --out for a new runs/<UTC time>/)" }
}
