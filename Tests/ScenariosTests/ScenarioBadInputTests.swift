import Foundation
import TestSupport
import Testing

/// Bad input to `bench scenario list-scroll` exits 64 with a message naming the valid choices.
@Suite(.serialized) struct ScenarioBadInputTests {
    @Test func badOptionsExit64NamingTheValidChoices() throws {
        let cases: [(arguments: [String], expected: String)] = [
            (["--strategy", "curl-memory"], "valid: data, download"),
            (["--render", "huge"], "valid: none, full, thumbnail"),
            (["--max-concurrent", "4,17"], "1...16"),
            (
                ["--fault", "gremlins"],
                "valid: status-404, status-500, status-503, slow-first-byte, truncate, reset, chunked"
            ),
            (["--cache-limit", "lots"], "64M"),
            (["--visible", "200", "--rows", "100"], "--visible must be between 1 and --rows"),
        ]
        for (arguments, expected) in cases {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: benchExecutable())
            process.arguments = ["scenario", "list-scroll"] + arguments
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 64, "\(arguments)")
            #expect(message.contains(expected), "\(arguments): \(message)")
        }
    }
}
