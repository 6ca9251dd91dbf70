import Foundation

extension BenchProcess {
    /// Runs `bench arguments...` in `workingDirectory` with `extraEnvironment` added to this
    /// process's environment, and waits for it (bounded: killed after `timeout` seconds).
    static func run(_ arguments: [String], workingDirectory: URL? = nil, extraEnvironment: [String: String] = [:],
                    timeout: TimeInterval = 600) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        process.environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        let outData = PipeContents(), errData = PipeContents()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outData.data = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData.data = err.fileHandleForReading.readDataToEndOfFile() }
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        group.wait()
        return Output(status: process.terminationStatus,
                      standardOutput: String(decoding: outData.data, as: UTF8.self),
                      standardError: String(decoding: errData.data, as: UTF8.self))
    }
}
