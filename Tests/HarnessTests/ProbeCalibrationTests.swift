import BenchCore
import Foundation
import Harness
import Probe
import Strategies
import TestSupport
import Testing

/// The probe against a known answer: a 50 MB block, every page touched, held for 2 ms, freed.
/// The exact heap peak (the allocation wrappers linked into bench) must be right to within 1%; VmHWM must catch the RSS
/// spike after it is gone; the sampled heap peak may miss a 2 ms spike (that is its known
/// limitation, and why the exact peak exists) but can never report more than there was.
@Suite(.serialized) struct ProbeCalibrationTests {
    /// The harness's own error, if any, fails the tests that read the rows (never an empty list).
    static let outcome: Result<[TrialResult], any Error> = Result {
        let plan = BenchmarkPlan(
            strategies: [CalibrationSpikeStrategy.name],
            renders: [.none],
            allocators: Allocator.allCases,
            runs: 3
        )
        let runner = BenchmarkRunner(
            plan: plan,
            source: .external(url: URL(string: "http://127.0.0.1:1/unused")!, warmupURL: nil),
            launcher: ChildProcessLauncher(executable: BenchProcess.executable)
        )
        return try runner.run()
    }
    static var results: [TrialResult] { get throws { try outcome.get() } }

    static let spike = Double(CalibrationSpikeStrategy.spikeBytes)

    @Test func everyRunSucceeded() throws {
        #expect(try Self.results.count == 6)
        for row in try Self.results where !row.isSuccess {
            Issue.record("\(row.cell) run \(row.run): \(row.status.rawValue) \(row.error)")
        }
    }

    @Test func exactHeapPeakIsRightToOnePercent() throws {
        for row in try Self.results {
            let delta = Double(try #require(row.peakHeapExactDeltaBytes, "no exact heap peak"))
            #expect(abs(delta - Self.spike) <= 0.01 * Self.spike, "\(row.cell) run \(row.run): exact delta \(delta)")
        }
    }

    @Test func highWaterMarkCatchesTheFreedRSSSpike() throws {
        for row in try Self.results {
            let delta = Double(try #require(row.peakRSSDeltaBytes))
            #expect(delta >= 0.99 * Self.spike, "\(row.cell) run \(row.run): peak RSS delta \(delta)")
        }
    }

    @Test func sampledHeapPeakNeverExceedsTheTruth() throws {
        for row in try Self.results {
            let sampled = Double(try #require(row.peakAllocatedDeltaBytes))
            #expect(sampled <= 1.01 * Self.spike + 1_000_000, "\(row.cell) run \(row.run): sampled \(sampled)")
        }
    }
}

/// The exact heap peak needs nothing but the `bench` binary: a copy of it alone in a folder (as
/// `swift run` or `swift build --product bench` leaves it, with no library built beside it)
/// reports it under both allocators, and `--no-exact-heap` (BENCH_EXACT_HEAP=off in the child)
/// still turns it off while the sampled heap peak remains.
@Suite(.serialized) struct ExactHeapFromTheBinaryAloneTests {
    static let spike = Double(CalibrationSpikeStrategy.spikeBytes)

    static func run(exactHeapPeak: Bool) throws -> [TrialResult] {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let alone = folder.appendingPathComponent("bench").path
        try FileManager.default.copyItem(atPath: BenchProcess.executable, toPath: alone)
        let plan = BenchmarkPlan(
            strategies: [CalibrationSpikeStrategy.name],
            renders: [.none],
            allocators: Allocator.allCases,
            runs: 1
        )
        let runner = BenchmarkRunner(
            plan: plan,
            source: .external(url: URL(string: "http://127.0.0.1:1/unused")!, warmupURL: nil),
            launcher: ChildProcessLauncher(executable: alone, exactHeapPeak: exactHeapPeak)
        )
        return try runner.run()
    }

    @Test func aCopiedBinaryAloneReportsTheExactHeapPeak() throws {
        let rows = try Self.run(exactHeapPeak: true)
        #expect(Set(rows.map(\.allocator)) == Set(Allocator.allCases))
        for row in rows {
            try #require(row.isSuccess, "\(row.cell): \(row.status.rawValue) \(row.error)")
            let delta = Double(
                try #require(row.peakHeapExactDeltaBytes, "\(row.cell): no exact heap peak from bench alone")
            )
            #expect(abs(delta - Self.spike) <= 0.01 * Self.spike, "\(row.cell): exact delta \(delta)")
        }
    }

    @Test func noExactHeapTurnsTheCountingOffInTheChild() throws {
        let rows = try Self.run(exactHeapPeak: false)
        #expect(rows.count == Allocator.allCases.count)
        for row in rows {
            try #require(row.isSuccess, "\(row.cell): \(row.status.rawValue) \(row.error)")
            #expect(
                row.peakHeapExactDeltaBytes == nil,
                "\(row.cell): exact peak \(String(describing: row.peakHeapExactDeltaBytes)) with the counting off"
            )
            #expect(row.lifetimePeakHeapExactBytes == nil)
            let sampled = try #require(row.peakAllocatedDeltaBytes)
            #expect(Double(sampled) <= 1.01 * Self.spike + 1_000_000, "\(row.cell): sampled \(sampled)")
        }
    }
}
