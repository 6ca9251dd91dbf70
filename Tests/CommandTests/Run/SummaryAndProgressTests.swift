import BenchCore
import Foundation
import Harness
import TestSupport
import Testing

/// What a run prints for a person: the summary's article column and the progress line on a terminal.
@Suite struct SummaryAndProgressTests {
    static let tinyRun = [
        "run", "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "3",
        "--width", "64", "--height", "48",
    ]

    /// Recorded children that fetched a 64 x 48 fixture's few kilobytes, not the article's image.
    struct SmallImageChildren: TrialLauncher {
        func launch(_ spec: TrialSpec) -> TrialResult {
            var result = RecordedChildren().launch(spec)
            result.payloadBytes = 2_405
            return result
        }
    }

    /// The article's iOS figure stands only beside a cell that measured the article's image: beside a
    /// 64 x 48 fixture it would compare nothing, so the column is empty in the table and in summary.csv.
    /// In-process (`InProcessBench`).
    @Test func theArticleFigureIsLeftOutBesideAnotherImage() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = InProcessBench.run(Self.tinyRun + ["--out", folder.path], children: SmallImageChildren())
        try #require(output.status == 0, "\(output.standardError)")
        let line = try #require(
            output.standardOutput.split(separator: "\n").first { $0.hasPrefix("data+none [system]") }
        )
        #expect(!line.contains("~"), "\(line)")
        let rows = try JobsTests.rows(folder, file: "summary.csv")
        #expect(rows.count == 1 && rows.first?["article_over_baseline_bytes"] == "", "\(rows)")
    }

    /// On a terminal narrower than the progress line, each update is cut to the width: a line that
    /// wraps cannot be redrawn in place and would leave a fragment per update.
    @Test func theProgressLineFitsANarrowTerminal() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let command = ([BenchProcess.executable] + Self.tinyRun + ["--out", folder.path]).map { "'\($0)'" }.joined(
            separator: " "
        )
        // script(1) gives bench a pseudo-terminal 40 columns wide as its stderr; stdout is not read.
        let output = try BenchProcess.run(
            ["-q", "-e", "-c", "stty cols 40 rows 24; exec \(command) > /dev/null", "/dev/null"],
            program: "/usr/bin/script"
        )
        try #require(output.status == 0, "\(output.standardOutput)\(output.standardError)")
        let updates = output.standardOutput.components(separatedBy: "\r")
            .map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
            .filter { $0.hasPrefix("[") && $0.contains("/min") }
        #expect(!updates.isEmpty, "no progress update drawn: \(output.standardOutput.debugDescription)")
        for update in updates { #expect(update.count < 40, "\(update.debugDescription) is \(update.count) columns") }
    }
}
