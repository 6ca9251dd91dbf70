import Foundation
import TestSupport

/// `bench serve` as a real process on an ephemeral port, for hostile clients to hit.
final class ServeProcess {
    let process = Process()
    let port: Int
    /// What it printed before serving: the "serving <url> (<file>)" line.
    let servingLine: String
    private let output = Pipe()

    /// Starts `bench serve --port 0 <arguments>` and waits (at most 60 s) for its "serving" line.
    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: BenchProcess.executable)
        process.arguments = ["serve", "--port", "0"] + arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        for _ in 0..<600 where !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData  // blocks until output or EOF
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: #"127\.0\.0\.1:\d+"#, options: .regularExpression),
            let port = Int(text[range].split(separator: ":")[1])
        else {
            process.terminate()
            struct NoPort: Error { var output: String }
            throw NoPort(output: text)
        }
        self.port = port
        servingLine = text.split(separator: "\n").first.map(String.init) ?? ""
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Runs `/usr/bin/curl` (bounded by --max-time) and returns the HTTP status it saw (0 if none).
    func curl(_ pathAndQuery: String, _ extra: [String] = []) throws -> Int {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments =
            ["--silent", "--max-time", "15", "--output", "/dev/null", "--write-out", "%{http_code}"]
            + extra + ["http://127.0.0.1:\(port)\(pathAndQuery)"]
        let out = Pipe()
        curl.standardOutput = out
        curl.standardError = FileHandle.nullDevice
        try curl.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        return Int(text) ?? 0
    }
}
