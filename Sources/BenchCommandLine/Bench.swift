import BenchCore
import ArgumentParser

/// The whole `bench` command line. The `bench` executable and a user's own (through
/// ImageMemoryBench's `BenchMain`) both run it; user strategies are registered before it parses.
package struct Bench: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: executableName,
        abstract: "Measures how much memory downloading and showing a large image costs, strategy by strategy.",
        discussion: """
        Each run happens in a fresh child process that fetches the image from a loopback server, \
        optionally decodes it, and reports its RSS and heap peaks over a warmed-up baseline. \
        Results go to trials.csv, timeline.csv and trials.json; a summary is printed.
        """,
        subcommands: [RunCommand.self, ListCommand.self, FixtureCommand.self, ServeCommand.self, SweepCommand.self, CorpusCommand.self,
                      ScenarioCommand.self, ReportCommand.self, CompareCommand.self, BaselineCommand.self,
                      TrialCommand.self, ScenarioChildCommand.self],
        defaultSubcommand: RunCommand.self)

    /// `bench`, or a user's executable's own name (`ahc-bench`), so usage lines and errors name
    /// the command the user typed.
    static let executableName: String = {
        let name = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? "bench" : name
    }()
}
