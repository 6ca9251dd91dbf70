import Foundation
import TestSupport
import Testing

/// `bench report` on the committed reference, as a hostile user ran it: it must refuse to rewrite
/// what only `bench-reference` computes.
@Suite struct CommittedReferenceReportTests {
    /// `bench report` on a copy of the committed reference with --no-report: refused (its REPORT.md has
    /// figures only bench-reference computes), and nothing written: its charts/data keeps every file.
    @Test func reportRefusesTheCommittedReferenceBeforeWritingAnything() throws {
        let folder = BenchProcess.temporaryFolder().appendingPathComponent("results")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(
            at: folder.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("results"), to: folder)
        let data = folder.appendingPathComponent("charts/data")
        let before = try FileManager.default.contentsOfDirectory(atPath: data.path).sorted()
        for extra in [
            ["--no-report"],
            ["--report-file", folder.deletingLastPathComponent().appendingPathComponent("elsewhere.md").path], [],
        ] {
            let output = try BenchProcess.run(["report", "--results", folder.path] + extra)
            #expect(output.status == 65, "\(extra): \(output.standardError)")
            #expect(
                output.standardError.contains("REPORT.md") && output.standardError.contains("make reference"),
                "the message names the document and what regenerates it: \(output.standardError)"
            )
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == before,
                "\(extra): nothing removed"
            )
        }
    }
}
