import BenchCore
import Foundation
import LoopbackServer
import Report
import TestSupport
import Testing

/// One `bench run --url` child against a loopback server that serves `body` at `/name`: the
/// exit status and the single row of trials.csv, by column name.
func runServedBody(
    _ body: Data,
    name: String,
    contentType: String,
    _ arguments: [String]
) throws -> (status: Int32, row: [String: String]) {
    let server = LoopbackServer()
    server.addResource(path: "/\(name)", body: body, contentType: contentType)
    try server.start()
    defer { server.shutdown() }
    let out = BenchProcess.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: out) }
    let output = try BenchProcess.run(
        [
            "--url", server.url(for: "/\(name)").absoluteString, "--allocator", "system",
            "--runs", "1", "--out", out.path,
        ] + arguments,
        timeout: 120
    )
    let rows = try CSV.parse(String(contentsOf: out.appendingPathComponent("trials.csv"), encoding: .utf8))
    let header = try #require(rows.first)
    let values = try #require(rows.dropFirst().first, "one row: \(output.standardError)")
    return (output.status, Dictionary(uniqueKeysWithValues: zip(header, values)))
}
