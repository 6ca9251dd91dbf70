import Foundation
import Synchronization

/// The `bench` binary that SwiftPM built next to the test bundle, run as a real process.
public enum BenchProcess {
    public static var executable: String { benchExecutable() }

    public typealias Output = CommandOutput

    /// Runs `bench arguments...` (or `program arguments...`: another executable, such as a user's
    /// own bench) in `workingDirectory` when given, with `extraEnvironment` added to this process's
    /// environment, and waits for it (bounded: killed after `timeout` seconds).
    public static func run(
        _ arguments: [String],
        program: String? = nil,
        workingDirectory: URL? = nil,
        extraEnvironment: [String: String] = [:],
        timeout: TimeInterval = 300
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program ?? executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        if !extraEnvironment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        // Drain the pipes on other threads so a chatty child cannot block on a full pipe.
        let outData = PipeContents()
        let errData = PipeContents()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outData.data = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData.data = err.fileHandleForReading.readDataToEndOfFile() }
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        group.wait()  // orders the reader threads' writes before these reads
        return Output(
            status: process.terminationStatus,
            standardOutput: String(decoding: outData.data, as: UTF8.self),
            standardError: String(decoding: errData.data, as: UTF8.self)
        )
    }

    /// What one reader thread collected.
    final class PipeContents: Sendable {
        private let bytes = Mutex(Data())
        var data: Data {
            get { bytes.withLock { $0 } }
            set { bytes.withLock { $0 = newValue } }
        }
    }

    public static func temporaryFolder() -> URL { TestFolder.temporary() }
}
