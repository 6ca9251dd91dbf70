import ArgumentParser
import BenchCore

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
        subcommands: [
            RunCommand.self, ListCommand.self, FixtureCommand.self, RenderCommand.self, ServeCommand.self,
            SweepCommand.self, CorpusCommand.self,
            ScenarioCommand.self, ReportCommand.self, CompareCommand.self, MergeCommand.self, BaselineCommand.self,
            TrialCommand.self, TrialSpecCommand.self, ListScrollChildCommand.self, ServerChildCommand.self,
            ResidencyCheckCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )

    /// Makes the parent's stdout and stderr safe before anything is written: closed ones lead to
    /// /dev/null, and a reader that left is an ignored EPIPE, not SIGPIPE. The measured children
    /// (`_trial`, `_list-scroll`) are left as they were spawned: their signals are part of what is measured.
    package static func prepareStandardStreams(arguments: [String] = CommandLine.arguments) {
        StandardStreams.reopenClosed()
        let childCommands = [TrialCommand.configuration.commandName, ListScrollChildCommand.configuration.commandName]
        if let subcommand = arguments.dropFirst().first, childCommands.contains(subcommand) { return }
        StandardStreams.ignoreBrokenPipes()
    }

    /// `bench`, or a user's executable's own name (`ahc-bench`), so usage lines and errors name
    /// the command the user typed.
    static let executableName: String = {
        let name = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? "bench" : name
    }()
}
