import ArgumentParser
import BenchCore
import Harness

/// How often a trial child samples its memory, which blocks it records for holders.csv and how long it
/// may take: shared by run, sweep and corpus.
struct TrialTimingOptions: ParsableArguments {
    @Option(help: "Time between memory samples in the child, in microseconds.")
    var sampleIntervalUs = 500

    @Option(help: "Seconds a child may take before it is killed and recorded as a timeout.")
    var timeout = 60.0

    @Option(
        help: ArgumentHelp(
            "Record every block of at least this many bytes with its call stack, to name who holds the exact heap peak (holders.csv); "
                + "0 records none. \(ByteSize.rule). (default: \(TrialSpec.defaultHolderThresholdBytes), 64Ki)",
            valueName: "bytes"
        ),
        transform: {
            try ByteSize.parse($0, option: "--holder-threshold", range: 0...(1 << 40), example: "65536, 64Ki or 1Mi")
        }
    )
    var holderThreshold = TrialSpec.defaultHolderThresholdBytes

    /// Both change the figures a trial reports, so they are options, recorded in settings.json (under
    /// the names of their environment aliases, which folders have always recorded).
    @Option(
        help: ArgumentHelp(
            "How the child's window ends after the render: 'rule' (once RSS and the heap are flat, at most \(TrialSpec.defaultSettleNanos / 1_000_000) ms) "
                + "or 'fixed' (a pause of that length). Default: \(TrialSpec.settleEnvironmentVariable) if set, else rule.",
            valueName: "rule|fixed"
        )
    )
    var settle: TrialSettings.Settle?

    @Option(
        help: ArgumentHelp(
            "'off': the children take no residency snapshots (residency.csv has its header only), to measure what they cost. "
                + "Default: \(TrialSpec.residencyEnvironmentVariable) if set, else on.",
            valueName: "on|off"
        )
    )
    var residency: TrialSettings.Residency?

    func validate() throws {
        guard (0...(1 << 40)).contains(holderThreshold) else {
            throw ValidationError("--holder-threshold must be between 0 and \(1 << 40) bytes (got \(holderThreshold))")
        }
        guard (50...1_000_000).contains(sampleIntervalUs) else {
            throw ValidationError("--sample-interval-us must be between 50 and 1000000")
        }
        guard timeout > 0 && timeout <= 3600 else {
            throw ValidationError("--timeout must be in (0, 3600] seconds (got \(timeout))")
        }
    }

    func apply(to settings: inout TrialSettings) {
        settings.sampleIntervalNanos = UInt64(sampleIntervalUs) * 1000
        settings.timeoutSeconds = timeout
        settings.holderThresholdBytes = holderThreshold
        if let settle { settings.settleIsFixed = settle == .fixed }
        if let residency { settings.residencyIsOff = residency == .off }
    }
}

extension TrialSettings.Settle: ExpressibleByArgument {}
extension TrialSettings.Residency: ExpressibleByArgument {}
