import ArgumentParser
import Strategies

/// A `--strategy` value: a name from the catalog (`bench list`), or `all`. A struct, not an enum:
/// the catalog, not this file, decides which names exist, so strategies registered at start-up
/// are accepted, listed in the error and offered by completion like the built-in ones.
struct StrategyName: ExpressibleByArgument, Hashable, Sendable {
    static let all = StrategyName(name: "all")

    let name: String
    private init(name: String) { self.name = name }

    /// A catalog strategy, a calibration strategy (commands that do not take those refuse them in
    /// `validate()`), or `all`; anything else is a usage error that lists `allValueStrings`.
    init?(argument: String) {
        guard argument == Self.all.name || StrategyCatalog.strategy(named: argument) != nil else { return nil }
        name = argument
    }

    static var allValueStrings: [String] { StrategyCatalog.names + [all.name] }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

/// `--strategy` values as commands take them: names from `bench list`, or `all`.
enum StrategySelection {
    /// The strategies asked for, each once, in the order given; `all` means every one;
    /// none asked for means `whenEmpty`.
    static func names(_ requested: [StrategyName], whenEmpty: [String]) -> [String] {
        if requested.isEmpty { return whenEmpty }
        if requested.contains(.all) { return StrategyCatalog.names }
        return requested.map(\.name).reduce(into: []) { names, name in if !names.contains(name) { names.append(name) } }
    }

    /// Refuses calibration strategies where the caller does not take them, naming the valid choices.
    static func validate(_ requested: [StrategyName], allowingCalibration: Bool) throws {
        guard !allowingCalibration else { return }
        let calibration = StrategyCatalog.calibration.map { $0.name }
        for strategy in requested where calibration.contains(strategy.name) {
            throw ValidationError(
                "'\(strategy.name)' is a calibration strategy, not measured here; valid choices: "
                    + StrategyName.allValueStrings.joined(separator: ", ")
            )
        }
    }
}
