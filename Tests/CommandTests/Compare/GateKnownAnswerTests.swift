import BenchCore
import Foundation
import Harness
import Probe
import Report
import TestSupport
import Testing

/// The gate's known answer in real processes: the real `bench` measures the data task with the
/// full render in fresh children, both allocators, at the default run count (5), once as it is
/// and once with the test-only extra copy of the payload (BENCH_INJECT_REGRESSION=extra-copy);
/// `bench compare` must call the peak-RSS growth a confirmed regression under both allocators.
///
/// Fails on a normal approximation for Mann-Whitney: RSS is counted in pages, so 10 pooled runs tie,
/// and the approximation's smallest p at 5 against 5 (0.0052 to 0.0061) is above the committed
/// level 0.005: the extra copy would be "unconfirmed" and the gate would pass.
@Suite(.serialized) struct GateKnownAnswerTests {
    @Test func extraCopyOfThePayloadIsAConfirmedPeakRSSRegressionAtTheDefaultRunCount() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let baseline = folder.appendingPathComponent("baseline.json")
        let matrix = ["--strategy", "data", "--render", "full"]

        let measured = try BenchProcess.run(
            ["baseline", "update"] + matrix
                + ["--out", folder.appendingPathComponent("baseline-run").path, "--baseline", baseline.path]
        )
        #expect(measured.status == 0, "\(measured.standardError)")
        let current = folder.appendingPathComponent("current")
        let injected = try BenchProcess.run(
            ["run"] + matrix + ["--out", current.path],
            extraEnvironment: [InjectedRegression.environmentVariable: "extra-copy"]
        )
        #expect(injected.status == 0, "\(injected.standardError)")
        #expect(injected.standardError.contains("a deliberate regression is injected"))

        let old = try TrialsFile.load(baseline.path)
        let new = try TrialsFile.load(current.appendingPathComponent("trials.json").path)
        let thresholdsFile = CompareCommandTests.thresholdsFile
        let thresholds = try GateThresholds.load(from: URL(fileURLWithPath: thresholdsFile))
        #expect(thresholds.significanceLevel == 0.005, "the committed level")
        let gate = GateComparison(baseline: old, current: new, thresholds: thresholds)
        for allocator in Allocator.allCases {
            let cell = TrialCell(strategy: "data", render: .full, allocator: allocator)
            let comparison = try #require(gate.comparisons.first { $0.cell == cell && $0.metric == .peakRSSDelta })
            #expect(comparison.baseline?.count == 5 && comparison.current?.count == 5, "the default run count")
            // The extra copy is the payload (13.1 MB), no less and not much more.
            let change = try #require(comparison.change)
            #expect(change > 0.8 * 13_108_402 && change < 1.3 * 13_108_402, "\(cell): +\(change / 1e6) MB")
            #expect(try #require(comparison.pGreater) < thresholds.significanceLevel, "\(cell)")
            #expect(comparison.verdict == .regression, "\(cell): \(comparison.verdict), p \(comparison.pGreater ?? -1)")
        }

        // The command says the same, with its exit status.
        let compare = try BenchProcess.run([
            "compare", baseline.path, current.appendingPathComponent("trials.json").path,
            "--thresholds", thresholdsFile,
        ])
        #expect(compare.status == 2, "\(compare.standardOutput)\(compare.standardError)")
        let rssRows = compare.standardOutput.split(separator: "\n").filter { $0.contains("peak RSS") }
        #expect(rssRows.count == 2)
        #expect(
            rssRows.allSatisfy { $0.hasPrefix("data+full [") && $0.hasSuffix("REGRESSION") },
            "\(compare.standardOutput)"
        )
        // The peak-RSS test is decided by the significance test, not the threshold alone. (Other
        // metrics may warn: the exact heap peak often ties run for run, which leaves too few ranks.)
        let tooFewForRSS = (compare.standardOutput + compare.standardError).split(separator: "\n")
            .filter { $0.contains("too few") && $0.contains("peak RSS") }
        #expect(tooFewForRSS.isEmpty, "\(tooFewForRSS)")
    }
}
