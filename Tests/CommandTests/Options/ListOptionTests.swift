import TestSupport
import Testing

/// Comma-separated list options: an empty list or entry, and a value named twice, are usage
/// errors naming the option, never a trap, a silent skip or the same thing measured twice.
@Suite struct ListOptionTests {
    /// The arguments parsed and validated as `bench` does, in-process: the refusals come before any
    /// server, fixture or child.
    static func run(_ arguments: [String]) -> CommandOutput { InProcessBench.parse(arguments) }

    static let quickScroll = ["scenario", "list-scroll", "--rows", "4", "--visible", "2", "--speed", "1000"]

    /// An empty list (`''`, `','`, a blank) is a usage error naming the option, before any server starts.
    @Test(arguments: ["--sizes", "--strategy", "--render", "--max-concurrent"], ["", ",", ",,", " "])
    func anEmptyScenarioListIsAUsageError(option: String, value: String) {
        let output = Self.run(Self.quickScroll + [option, value])
        #expect(output.status == 64, "\(option) '\(value)': \(output.status) \(output.standardError)")
        #expect(output.standardError.contains(option), "\(option) '\(value)': \(output.standardError)")
    }

    @Test(arguments: [
        ("--sizes", "64x64,,96x64"), ("--strategy", "data,"), ("--render", ",none"), ("--max-concurrent", "1,,2"),
    ])
    func anEmptyEntryIsAUsageError(option: String, value: String) {
        let output = Self.run(Self.quickScroll + ["--sizes", "64x64", option, value])
        #expect(output.status == 64, "\(option) '\(value)': \(output.status) \(output.standardError)")
        #expect(output.standardError.contains("\(option) has an empty entry"), "\(output.standardError)")
    }

    /// A value named twice (`--strategy data,data`) is a usage error naming it: each value is measured once.
    @Test(arguments: [("--strategy", "data,data"), ("--render", "none,none"), ("--max-concurrent", "2,2")])
    func aScenarioValueNamedTwiceIsAUsageError(option: String, value: String) {
        let output = Self.run(Self.quickScroll + ["--sizes", "64x64", "--render", "none", option, value])
        #expect(output.status == 64, "\(option) '\(value)': \(output.status) \(output.standardError)")
        let once = value.split(separator: ",")[0]
        #expect(output.standardError.contains("\(option) names '\(once)' twice"), "\(output.standardError)")
    }

    /// sweep's --sizes refuses an empty list or entry and a size named twice (`1,1`, `1,1.0`):
    /// each size is measured once.
    @Test(arguments: ["", ",", ",,", "1,,2", "1,1", "1,1.0"])
    func badSweepSizesAreUsageErrors(value: String) {
        let output = Self.run(["sweep", "--strategy", "data", "--runs", "1", "--sizes", value])
        #expect(output.status == 64, "'\(value)': \(output.status) \(output.standardError)")
        #expect(output.standardError.contains("--sizes"), "\(output.standardError)")
    }

    /// image-server's --route and --body refuse a value they do not take naming the valid ones, and
    /// --body without --route post (it would say how an upload is held where none is), before any server starts.
    @Test(arguments: [
        (["--route", "put"], "--route 'put' is not valid; valid: get, post"),
        (["--route", "post", "--body", "memory"], "--body 'memory' is not valid; valid: collect, file"),
        (
            ["--route", "get", "--body", "file"],
            "--body says how POST /image holds its upload: give it with --route post"
        ),
    ])
    func imageServerRoutesAndBodiesAreValidated(arguments: [String], message: String) {
        let output = Self.run(["scenario", "image-server", "--requests", "1", "--runs", "1"] + arguments)
        #expect(output.status == 64, "\(arguments): \(output.status) \(output.standardError)")
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }

    /// A list that is fine is accepted: the guard is not a blanket refusal.
    @Test func aGoodScenarioListIsAccepted() {
        let output = Self.run(
            Self.quickScroll + ["--sizes", "64x64,96x64", "--render", "none", "--strategy", "data,download"]
        )
        #expect(output.status == 0, "\(output.standardError)")
    }
}
