import Foundation
import Strategies

/// A deliberate, test-only regression, switched on by the environment of `bench run`
/// (children inherit it): `BENCH_INJECT_REGRESSION=extra-copy`. It exists to prove that
/// the memory gate catches a real regression; it never runs unless asked for.
package enum InjectedRegression: String, CaseIterable, Sendable {
    /// Keeps a second copy of an in-memory payload alive through the render, as a careless
    /// `Data(body)` would. File payloads (download strategies) are left alone.
    case extraCopy = "extra-copy"

    package static let environmentVariable = "BENCH_INJECT_REGRESSION"

    /// nil when the variable is unset or empty; throws for a value it does not know.
    package static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> InjectedRegression? {
        guard let value = environment[environmentVariable], !value.isEmpty else { return nil }
        guard let regression = InjectedRegression(rawValue: value) else {
            throw TrialError.unknownRegression(
                variable: environmentVariable,
                value: value,
                valid: allCases.map(\.rawValue)
            )
        }
        return regression
    }

    /// What the trial must keep alive until its readings are taken.
    func apply(to payload: Payload) -> Any? {
        switch (self, payload) {
        case (.extraCopy, .memory(let data)):
            // A fresh buffer, written byte by byte: resident, and not shared with `data`.
            return data.withUnsafeBytes { Data($0) }
        case (.extraCopy, .file):
            return nil
        }
    }
}
