import BenchCore
import Foundation
import TestSupport
import Testing

/// bench-reference's --document, refused before anything is written: the real `bench-reference`
/// on a run folder measured in-process with recorded children.
@Suite struct DocumentOptionTests {
    /// A --document that does not exist is refused before anything is written.
    @Test func referenceRefusesAMissingDocument() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try ResultFileChecksTests.quickRun(in: folder)
        let missing = folder.appendingPathComponent("missing.md")
        let report = try BenchProcess.run(
            ["--results", run.path, "--document", missing.path],
            program: builtExecutable(named: "bench-reference")
        )
        #expect(report.status == BenchExitCode.noInput.rawValue, "\(report.status): \(report.standardError)")
        #expect(
            report.standardError.contains("--document") && report.standardError.contains(missing.path),
            "\(report.standardError)"
        )
        #expect(
            !FileManager.default.fileExists(atPath: run.appendingPathComponent("REPORT.md").path),
            "nothing written"
        )
        #expect(
            !FileManager.default.fileExists(atPath: run.appendingPathComponent("charts/data").path),
            "nothing written"
        )
    }

    /// A --document that is a folder is refused (73) before anything is written: no REPORT.md, no chart data.
    @Test func referenceRefusesAFolderAsDocument() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try ResultFileChecksTests.quickRun(in: folder)
        let report = try BenchProcess.run(
            ["--results", run.path, "--document", folder.path],
            program: builtExecutable(named: "bench-reference")
        )
        #expect(report.status == BenchExitCode.cannotCreateOutput.rawValue, "\(report.status): \(report.standardError)")
        #expect(report.standardError.contains("--document \(folder.path) is a folder"), "\(report.standardError)")
        #expect(
            !FileManager.default.fileExists(atPath: run.appendingPathComponent("REPORT.md").path),
            "nothing written"
        )
        #expect(
            !FileManager.default.fileExists(atPath: run.appendingPathComponent("charts/data").path),
            "nothing written"
        )
    }
}
