import Foundation
import TestSupport
import Testing

/// `bench-reference` (encodings.csv is part of the committed reference) over an encodings.csv whose header names a column twice, or whose sizes
/// overflow: a data error (65) naming the problem, never a trap.
@Suite struct DuplicatedColumnTests {
    static let committed = packageRoot.appendingPathComponent("results")

    /// A results folder with the committed trials.csv and an encodings.csv changed by `edit`.
    static func report(encodings edit: (_ header: String, _ rows: [String]) -> [String]) throws -> BenchProcess.Output {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: committed.appendingPathComponent("trials.csv"),
            to: folder.appendingPathComponent("trials.csv")
        )
        let lines = try String(contentsOf: committed.appendingPathComponent("encodings.csv"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        try (edit(lines[0], Array(lines.dropFirst())).joined(separator: "\n") + "\n")
            .write(to: folder.appendingPathComponent("encodings.csv"), atomically: true, encoding: .utf8)
        return try BenchProcess.run(
            ["--results", folder.path, "--data-out", folder.appendingPathComponent("data").path],
            program: builtExecutable(named: "bench-reference")
        )
    }

    @Test func aColumnNamedTwiceIsADataErrorNamingIt() throws {
        let output = try Self.report { header, rows in [header + ",status"] + rows.map { $0 + ",ok" } }
        #expect(output.status == 65, "\(output.status): \(output.standardError.suffix(600))")
        #expect(
            output.standardError.contains("encodings.csv names the column 'status' twice"),
            "\(output.standardError.suffix(600))"
        )
    }

    @Test func sizesWhoseProductOverflowsAreADataError() throws {
        let output = try Self.report { header, rows in
            [header] + rows.map { $0.replacingOccurrences(of: ",6000,4000,", with: ",9999999999,9999999999,") }
        }
        #expect(output.status == 65, "\(output.status): \(output.standardError.suffix(600))")
        #expect(output.standardError.contains("9999999999x9999999999"), "\(output.standardError.suffix(600))")
    }
}
