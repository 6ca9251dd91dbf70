import ArgumentParser

/// `--runs`: how many times each combination is measured, each in a fresh child. The default
/// and the most allowed are the command's (`D`), and its help says why.
struct RunsOption<D: RunsDefaults>: ParsableArguments {
    @Option(help: ArgumentHelp("\(D.runsMeaning). \(D.runsDefaultWhy)"))
    var runs: Int = D.defaultRuns

    func validate() throws {
        guard (1...D.maximumRuns).contains(runs) else {
            throw ValidationError("--runs must be between 1 and \(D.maximumRuns) (got \(runs))")
        }
    }
}
