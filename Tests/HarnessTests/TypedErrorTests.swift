import Foundation
import Glibc
import Harness
import Testing

/// Errors carry the values that matter (errno, names, valid choices) as cases, not as text.
@Suite struct TypedErrorTests {
    @Test func anUnknownInjectedRegressionNamesItsValueAndTheValidOnes() {
        #expect(
            throws: TrialError.unknownRegression(
                variable: InjectedRegression.environmentVariable,
                value: "teleport",
                valid: InjectedRegression.allCases.map(\.rawValue)
            )
        ) {
            try InjectedRegression.fromEnvironment([InjectedRegression.environmentVariable: "teleport"])
        }
    }

    @Test func aMissingExecutableIsASpawnErrorWithENOENT() {
        let path = "/nonexistent/bench-\(UUID().uuidString)"
        #expect(throws: ChildProcessError.spawn(executable: path, errno: ENOENT)) {
            try ChildProcess.run(executable: path, arguments: [], environment: [:], timeoutSeconds: 5)
        }
    }
}
