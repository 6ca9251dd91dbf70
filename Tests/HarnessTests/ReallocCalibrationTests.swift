import BenchCore
import Foundation
import Harness
import Probe
import Strategies
import TestSupport
import Testing

/// The exact heap peak against a known answer for realloc: a 10,000,000-byte block grown to
/// 20,000,000 bytes with a 64 KiB neighbour in the way, so the allocator must copy it into a new
/// block while the old one is still live. The true peak over the baseline holds both blocks and
/// the neighbour; an interposer that books a realloc only after it returns sees at most the new
/// block and the neighbour (about 21 MB under jemalloc, 20 MB under glibc), and fails the lower
/// bound. The upper bound fails on double counting (the old block booked twice, a block never
/// released) and leaves room only for the allocators' rounding.
@Suite(.serialized) struct ReallocCalibrationTests {
    static let runsPerAllocator = 3

    static let results: Result<[TrialResult], any Error> = Result {
        let plan = BenchmarkPlan(
            strategies: [CalibrationReallocStrategy.name],
            renders: [.none],
            allocators: Allocator.allCases,
            runs: runsPerAllocator
        )
        let runner = BenchmarkRunner(
            plan: plan,
            source: .external(url: URL(string: "http://127.0.0.1:1/unused")!, warmupURL: nil),
            launcher: ChildProcessLauncher(executable: BenchProcess.executable)
        )
        return try runner.run()
    }

    /// Both blocks as requested: what must be live at once while realloc copies.
    static let bothBlocks = CalibrationReallocStrategy.oldBytes + CalibrationReallocStrategy.newBytes
    /// What the allocators hand out above the request. jemalloc: large size classes, 10,000,000
    /// rounds to 10 MiB (+485,760) and 20,000,000 to 20 MiB (+971,520), the neighbour is a class
    /// of its own (+0); glibc: 8 bytes of chunk header per block.
    static let sizeClassRounding = 485_760 + 971_520
    /// Anything else the measured window allocates (nothing, by design) and the exact peak's own
    /// granularity; far below the 10 MB that double counting the old block would add.
    static let slack = 64 * 1024

    @Test(arguments: Allocator.allCases)
    func exactPeakHoldsBothBlocksOfAMovingRealloc(allocator: Allocator) throws {
        let rows = try Self.results.get().filter { $0.allocator == allocator }
        #expect(rows.count == Self.runsPerAllocator)
        let upper = Self.bothBlocks + CalibrationReallocStrategy.neighbourBytes + Self.sizeClassRounding + Self.slack
        for row in rows {
            guard row.isSuccess else {
                Issue.record("\(row.cell) run \(row.run): \(row.status.rawValue) \(row.error)")
                continue
            }
            let delta = try #require(row.peakHeapExactDeltaBytes, "\(row.cell): no exact heap peak")
            #expect(
                delta >= Self.bothBlocks,
                "\(row.cell) run \(row.run): exact peak over baseline \(delta) misses the copy (both blocks: \(Self.bothBlocks))"
            )
            #expect(delta <= upper, "\(row.cell) run \(row.run): exact peak over baseline \(delta) above \(upper)")
        }
    }
}
