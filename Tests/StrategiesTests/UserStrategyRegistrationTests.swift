import Foundation
import Strategies
import Testing

/// A user's strategy names are checked before anything is registered: a clash with a built-in,
/// `all`, or a name that cannot be typed on a command line is refused with the names in use.
/// (Only refusals are tested here: a registration that succeeds would change the catalog for
/// every other test in this process.)
@Suite struct UserStrategyRegistrationTests {
    final class Named<Name: StrategyName>: FetchStrategy {
        static var name: String { Name.value }
        static var summary: String { "test strategy" }
        init(workDirectory: URL) {}
        func fetch(url: URL) throws -> FetchOutcome {
            throw FetchError.transport(.client(type: "Test", message: "not used"))
        }
    }
    protocol StrategyName { static var value: String { get } }
    enum BuiltInName: StrategyName { static let value = "data" }
    enum AllName: StrategyName { static let value = "all" }
    enum SpacedName: StrategyName { static let value = "my loader" }
    enum FineName: StrategyName { static let value = "my-loader" }

    @Test func aBuiltInNameIsRefused() {
        #expect(throws: StrategyRegistrationError.self) {
            try StrategyCatalog.registerUserStrategies([Named<BuiltInName>.self])
        }
        do {
            try StrategyCatalog.registerUserStrategies([Named<BuiltInName>.self])
        } catch {
            #expect(error.description.contains("'data' is already taken"))
            #expect(error.description.contains("download"))
        }
        #expect(StrategyCatalog.user.isEmpty)
    }

    @Test func allAndTwiceTheSameNameAreRefused() {
        #expect(throws: StrategyRegistrationError.self) {
            try StrategyCatalog.registerUserStrategies([Named<AllName>.self])
        }
        #expect(throws: StrategyRegistrationError.self) {
            try StrategyCatalog.registerUserStrategies([Named<FineName>.self, Named<FineName>.self])
        }
        #expect(StrategyCatalog.user.isEmpty)
    }

    @Test func aNameWithASpaceIsRefused() {
        #expect(throws: StrategyRegistrationError.self) {
            try StrategyCatalog.registerUserStrategies([Named<SpacedName>.self])
        }
        #expect(StrategyCatalog.user.isEmpty)
    }
}
