import ArgumentParser
import BenchCommandLine
import Foundation
import TestSupport
import Testing

/// Bad input to `bench scenario list-scroll` exits 64 with a message naming the valid choices: the
/// options parsed in-process, as the command parses them before measuring; one real `bench` for the
/// exit status.
@Suite struct ScenarioBadInputTests {
    /// The message and exit status `bench scenario list-scroll ARGUMENTS` ends with before measuring
    /// anything, or nil when the options are good.
    static func refusal(_ arguments: [String]) -> (message: String, status: Int32)? {
        do {
            let parsed = try Bench.parseAsRoot(["scenario", "list-scroll"] + arguments)
            _ = try #require(parsed as? ListScrollCommand).request()
            return nil
        } catch {
            return (Bench.message(for: error), Bench.exitCode(for: error).rawValue)
        }
    }

    @Test(arguments: [
        (["--strategy", "curl-memory"], "valid: data, download"),
        (["--render", "huge"], "valid: none, full, thumbnail"),
        (["--max-concurrent", "4,17"], "1...16"),
        (
            ["--fault", "gremlins"],
            "valid: status-404, status-500, status-503, slow-first-byte, truncate, reset, chunked"
        ),
        (["--cache-limit", "lots"], "64M"),
        (["--visible", "200", "--rows", "100"], "--visible must be between 1 and --rows"),
    ])
    func badOptionsExit64NamingTheValidChoices(arguments: [String], expected: String) throws {
        let refusal = try #require(Self.refusal(arguments), "\(arguments) was accepted")
        #expect(refusal.status == 64, "\(arguments)")
        #expect(refusal.message.contains(expected), "\(arguments): \(refusal.message)")
    }

    @Test func goodOptionsAreAccepted() {
        #expect(
            Self.refusal(["--strategy", "data,download", "--render", "thumbnail", "--max-concurrent", "1,16"]) == nil
        )
    }

    /// The real command's exit status and message for one of them.
    @Test func aRealBenchExits64() throws {
        let output = try BenchProcess.run(["scenario", "list-scroll", "--strategy", "curl-memory"])
        #expect(output.status == 64)
        #expect(output.standardError.contains("valid: data, download"), "\(output.standardError)")
    }
}
