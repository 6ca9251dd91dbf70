import ArgumentParser
import BenchCore
import Foundation
import Harness

/// How many measured children run at once: shared by run, sweep and corpus.
struct JobsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Children measured at once (1-\(ParallelTrials.maxJobs)). Peaks and heap figures do not depend on it; times do "
                + "(duration, start-up, fetch and render time, wall time), so the committed reference is serial. "
                + "data-stream and the calibration strategies always run alone; --bandwidth needs --jobs 1.",
            valueName: "n"
        )
    )
    var jobs = 1

    func validate() throws {
        guard (1...ParallelTrials.maxJobs).contains(jobs) else {
            throw ValidationError(
                "--jobs must be between 1 and \(ParallelTrials.maxJobs) (got \(jobs)); 1 runs one child at a time"
            )
        }
    }
}
