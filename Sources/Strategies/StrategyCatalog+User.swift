import BenchCore
import Synchronization

/// Strategies a user's executable adds to the catalog (ImageMemoryBench's `BenchMain`), set once
/// at start-up, before the command line is parsed, in the parent and in every child alike.
extension StrategyCatalog {
    private static let registeredByUser = Mutex<[any FetchStrategy.Type]>([])

    /// The user's strategies, in the order they were registered.
    package static var user: [any FetchStrategy.Type] {
        registeredByUser.withLock { $0 }
    }

    /// Built-in strategies first, then the user's: what `--strategy` accepts and `all` means.
    package static var available: [any FetchStrategy.Type] { all + user }

    /// Whether `name` is one of the user's strategies (`bench list` marks those).
    package static func isUser(_ name: String) -> Bool {
        user.contains { $0.name == name }
    }

    /// Adds `strategies` to the catalog. A name must be new (not a built-in, a calibration
    /// strategy, `all` or another of the user's) and usable on a command line and in a CSV cell (``CatalogName``).
    package static func registerUserStrategies(_ strategies: [any FetchStrategy.Type]) throws(StrategyRegistrationError)
    {
        let taken = (all + calibration).map { $0.name } + ["all"]
        var names: [String] = []
        for strategy in strategies {
            let name = strategy.name
            guard CatalogName.isUsable(name) else {
                throw StrategyRegistrationError("strategy name '\(name)' must be \(CatalogName.rule)")
            }
            guard !taken.contains(name), !names.contains(name) else {
                throw StrategyRegistrationError(
                    "strategy name '\(name)' is already taken; names in use: "
                        + (taken + names).joined(separator: ", ")
                )
            }
            names.append(name)
        }
        registeredByUser.withLock { $0 += strategies }
    }
}

/// A user's strategy whose name cannot be registered; the message names the problem and the names in use.
package struct StrategyRegistrationError: Error, CustomStringConvertible, Sendable {
    package var description: String
    init(_ description: String) { self.description = description }
}
