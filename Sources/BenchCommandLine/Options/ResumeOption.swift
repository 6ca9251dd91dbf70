import ArgumentParser

/// `--resume`, shared by run, sweep and corpus: go on with an interrupted run in its --out.
struct ResumeOption: ParsableArguments {
    @Flag(
        help:
            "Go on with the interrupted run in --out: same settings (checked; a difference is refused, named), only the runs not yet done are measured."
    )
    var resume = false

    func validate(out: String?, replace: Bool) throws {
        guard resume else { return }
        guard out != nil else {
            throw ValidationError("--resume needs --out: the folder of the interrupted run to go on with")
        }
        if replace {
            throw ValidationError("--resume keeps the rows in --out and --replace drops them; give one of them")
        }
    }
}
