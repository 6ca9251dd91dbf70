import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// All server tests run one at a time: several of them time transfers on a small, shared
/// machine, and parallel 13 MB downloads would only add noise.
@Suite(.serialized) enum LoopbackServerTests {}

/// Starts a server, runs `body`, always shuts the server down.
func withServer<T>(
    _ configuration: LoopbackServer.Configuration = .init(),
    _ body: (LoopbackServer) async throws -> T
) async throws -> T {
    let server = LoopbackServer(configuration: configuration)
    try server.start()
    defer { server.shutdown() }
    return try await body(server)
}

/// Deterministic, incompressible-looking bytes (xorshift64), so a corrupt or shifted
/// download cannot compare equal by accident.
func payload(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
    var bytes = [UInt8](repeating: 0, count: count)
    var state = seed
    bytes.withUnsafeMutableBytes { raw in
        var offset = 0
        while offset < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            withUnsafeBytes(of: state.littleEndian) { word in
                let n = min(8, count - offset)
                raw.baseAddress!.advanced(by: offset).copyMemory(from: word.baseAddress!, byteCount: n)
                offset += n
            }
        }
    }
    return Data(bytes)
}

/// A URLSession without caches or cookies, like the measured strategies use.
func makeSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.timeoutIntervalForRequest = 30
    return URLSession(configuration: configuration)
}

/// The result of one `curl` run: exit status, body, response headers and `-w` values.
struct CurlResult {
    var exitCode: Int32
    var body: Data
    var headers: String
    var writeOut: [String: String]
    var stderr: String

    var statusCode: Int { Int(writeOut["http_code"] ?? "") ?? 0 }
    var bodySize: Int { Int(writeOut["size_download"] ?? "") ?? -1 }
    var timeToFirstByte: Double { Double(writeOut["time_starttransfer"] ?? "") ?? 0 }
    var totalTime: Double { Double(writeOut["time_total"] ?? "") ?? 0 }

    /// The value of a response header (last response, case-insensitive name), or nil.
    func header(_ name: String) -> String? {
        for line in headers.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

/// Runs the `curl` command line against `url`. `--max-time` bounds every run. With
/// `keepBody: false` the body goes to /dev/null (only its size is reported).
func curl(_ url: URL, _ extraArguments: [String] = [], keepBody: Bool = true, maxTime: Int = 30) throws -> CurlResult {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("loopback-curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let bodyFile = directory.appendingPathComponent("body")
    let headerFile = directory.appendingPathComponent("headers")

    let keys = ["http_code", "size_download", "time_starttransfer", "time_total", "num_connects"]
    let format = keys.map { "\($0)=%{\($0)}" }.joined(separator: "\\n")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments =
        [
            "--silent", "--show-error", "--max-time", String(maxTime),
            "--output", keepBody ? bodyFile.path : "/dev/null", "--dump-header", headerFile.path,
            "--write-out", format,
        ] + extraArguments + [url.absoluteString]
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    process.waitUntilExit()  // outputs are small (`-w` and error text), the body goes to a file

    let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    var writeOut: [String: String] = [:]
    for line in out.split(separator: "\n") {
        let pair = line.split(separator: "=", maxSplits: 1)
        if pair.count == 2 { writeOut[String(pair[0])] = String(pair[1]) }
    }
    return CurlResult(
        exitCode: process.terminationStatus,
        body: (try? Data(contentsOf: bodyFile)) ?? Data(),
        headers: (try? String(contentsOf: headerFile, encoding: .utf8)) ?? "",
        writeOut: writeOut,
        stderr: String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    )
}

/// Seconds taken by `body`, on the monotonic clock.
func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try await body()
    return (result, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

/// This process's resident set size, from /proc/self/statm (Linux).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
