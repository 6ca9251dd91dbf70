import Foundation
import TestSupport
import Testing

/// `bench serve` stopped by a signal says so in its own words and exits 128 + the signal.
@Suite(.serialized) struct ServeSignalTests {
    /// serve stopped by SIGINT or SIGTERM exits 128 plus the signal and says it was stopped, in its own words,
    /// not a measuring run's.
    @Test(arguments: [(SIGINT, Int32(130), "SIGINT"), (SIGTERM, Int32(143), "SIGTERM")])
    func aSignalStopsTheServerWith128PlusIt(signal: Int32, status: Int32, name: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BenchProcess.executable)
        process.arguments = ["serve", "--port", "0", "--width", "64", "--height", "64"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Its first line says it serves: the signal handlers are installed right after it.
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.contains("serving http://127.0.0.1:"), "\(text)")
        usleep(300_000)
        kill(process.processIdentifier, signal)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(
            process.terminationReason == .exit && process.terminationStatus == status,
            "\(process.terminationStatus): \(message)"
        )
        #expect(message.contains("stopped by \(name)"), "\(message)")
        #expect(!message.contains("child") && !message.contains("measured"), "the run's wording: \(message)")
    }
}
