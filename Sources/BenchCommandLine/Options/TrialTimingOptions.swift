import ArgumentParser
import Harness

/// How often a trial child samples its memory and how long it may take: shared by run and sweep.
struct TrialTimingOptions: ParsableArguments {
    @Option(help: "Time between memory samples in the child, in microseconds.")
    var sampleIntervalUs = 500

    @Option(help: "Seconds a child may take before it is killed and recorded as a timeout.")
    var timeout = 60.0

    func validate() throws {
        guard (50...1_000_000).contains(sampleIntervalUs) else {
            throw ValidationError("--sample-interval-us must be between 50 and 1000000")
        }
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be in (0, 3600] seconds (got \(timeout))") }
    }

    func apply(to settings: inout TrialSettings) {
        settings.sampleIntervalNanos = UInt64(sampleIntervalUs) * 1000
        settings.timeoutSeconds = timeout
    }
}
