import ArgumentParser
import Strategies

/// `--strategy`, as run, sweep and corpus take it: names from `bench list`, or `all`; the
/// default is the command's (`D`).
struct StrategyOption<D: StrategyDefaults>: ParsableArguments {
    @Option(
        name: .customLong("strategy"),
        parsing: .singleValue,
        help: ArgumentHelp(
            "Strategy to measure, or 'all'; \(ListOption.forms). See `bench list`. (default: \(D.strategyDefaultHelp)) "
                + "(values: \(StrategyName.allValueStrings.joined(separator: ", ")))",
            valueName: "name"
        ),
        completion: .list(StrategyName.allValueStrings),
        transform: { text in
            try ListOption.parse(
                text,
                option: "--strategy",
                example: "data,download",
                choices: StrategyName.allValueStrings.joined(separator: ", ")
            ) { StrategyName(argument: $0) }
        }
    )
    var given: [[StrategyName]] = []

    /// As given, every occurrence's values in order.
    var requested: [StrategyName] { given.flatMap { $0 } }

    /// The strategies to measure: as given, `all` for every one, or the command's default.
    var names: [String] { StrategySelection.names(requested, whenEmpty: D.defaultStrategies) }

    func validate() throws {
        try ListOption.requireDistinct(requested, entries: requested.map(\.name), option: "--strategy")
        try StrategySelection.validate(requested, allowingCalibration: D.takesCalibrationStrategies)
    }
}
