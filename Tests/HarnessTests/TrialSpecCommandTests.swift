import BenchCore
import Foundation
import Harness
import TestSupport
import Testing

/// A trial run standalone (scripts/validate.py: `bench _trial --stdout --spec-file`) must be measured as
/// `bench run` measures it: `bench _trial-spec` prints the very spec a run gives that trial.
@Suite struct TrialSpecCommandTests {
    @Test func theSpecIsTheOneARunGivesTheTrial() throws {
        let work = "/tmp/bench-spec-work"
        let output = try BenchProcess.run([
            "_trial-spec", "--strategy", "download", "--render", "full",
            "--url", "http://127.0.0.1:9/fixture.jpg", "--work-directory", work,
            "--timeout", "600",
        ])
        try #require(output.status == 0, "\(output.standardError)")
        let printed = try JSONDecoder().decode(TrialSpec.self, from: Data(output.standardOutput.utf8))
        var settings = TrialSettings()
        settings.timeoutSeconds = 600
        let expected = settings.spec(
            for: TrialCell(strategy: "download", render: .full, allocator: .system),
            run: 1,
            url: URL(string: "http://127.0.0.1:9/fixture.jpg")!,
            warmupURL: nil,
            workDirectory: URL(fileURLWithPath: work, isDirectory: true)
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try encoder.encode(printed) == encoder.encode(expected))
        // The settle rule, not the fixed pause a spec without it asks for.
        #expect(printed.settleQuietNanos != nil)
    }

    /// scripts/validate.py's known-answer row runs a calibration strategy standalone: its spec is printed
    /// as any other's. A name that is no strategy is refused, naming the calibration ones among the valid.
    @Test func aCalibrationStrategyHasASpecAndAnUnknownOneIsAUsageError() throws {
        let output = try BenchProcess.run([
            "_trial-spec", "--strategy", "calibration-spike", "--render", "none",
            "--url", "http://127.0.0.1:9/a.jpg", "--work-directory", "/tmp/w",
        ])
        try #require(output.status == 0, "\(output.standardError)")
        let printed = try JSONDecoder().decode(TrialSpec.self, from: Data(output.standardOutput.utf8))
        #expect(printed.strategy == "calibration-spike" && printed.render == .none)
        let unknown = try BenchProcess.run([
            "_trial-spec", "--strategy", "calibration-spikes", "--render", "none",
            "--url", "http://127.0.0.1:9/a.jpg", "--work-directory", "/tmp/w",
        ])
        #expect(unknown.status == 64)
        #expect(unknown.standardError.contains("calibration-spike, calibration-realloc"), "\(unknown.standardError)")
    }

    @Test func aRendererThatIsNotOneIsAUsageError() throws {
        let output = try BenchProcess.run([
            "_trial-spec", "--strategy", "download", "--render", "fast",
            "--url", "http://127.0.0.1:9/a.jpg", "--work-directory", "/tmp/w",
        ])
        #expect(output.status == 64)
        #expect(output.standardError.contains("valid: "), "\(output.standardError)")
    }
}
