import ArgumentParser
import Strategies

/// `--strategy` values as commands take them: names from `bench list`, or `all`.
enum StrategySelection {
    /// The strategies asked for, each once, in the order given; `all` means every one;
    /// none asked for means `whenEmpty`.
    static func names(_ requested: [String], whenEmpty: [String]) -> [String] {
        if requested.isEmpty { return whenEmpty }
        if requested.contains("all") { return StrategyCatalog.names }
        return requested.reduce(into: []) { names, name in if !names.contains(name) { names.append(name) } }
    }

    /// Fails on a name that is not a strategy, naming the valid choices. Calibration strategies
    /// are accepted only where the caller allows them (they are not listed among the choices).
    static func validate(_ requested: [String], allowingCalibration: Bool) throws {
        let valid = StrategyCatalog.names + ["all"]
        let calibration = allowingCalibration ? StrategyCatalog.calibration.map { $0.name } : []
        for name in requested where !valid.contains(name) && !calibration.contains(name) {
            throw ValidationError("unknown strategy '\(name)'; valid choices: \(valid.joined(separator: ", "))")
        }
    }
}
