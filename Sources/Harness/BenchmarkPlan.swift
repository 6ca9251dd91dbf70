import BenchCore
import Foundation
import Imaging
import Probe

/// The matrix to measure: every strategy x renderer x allocator, `runs` times each.
package struct BenchmarkPlan: Sendable, Equatable {
    package var strategies: [String]
    package var renders: [RenderMode]
    package var allocators: [Allocator]
    package var runs: Int
    /// Only the cells of this shard are measured (`--shard i/n`); nil: all of them.
    package var shard: Shard?

    package init(strategies: [String], renders: [RenderMode], allocators: [Allocator], runs: Int) {
        self.strategies = strategies
        self.renders = renders
        self.allocators = allocators
        self.runs = runs
    }

    package var cells: [TrialCell] {
        allocators.flatMap { allocator in
            strategies.flatMap { strategy in
                renders.map { TrialCell(strategy: strategy, render: $0, allocator: allocator) }
            }
        }
    }

    /// Run 1 of every cell, then run 2 of every cell, and so on: slow drift of a shared
    /// machine then spreads over all cells instead of biasing whichever ran last.
    package func schedule() -> [(cell: TrialCell, run: Int)] {
        (1...max(runs, 1)).flatMap { run in cells.filter { shard?.includes($0) ?? true }.map { (cell: $0, run: run) } }
    }
}

/// Where the image comes from.
package enum ImageSource: Sendable {
    /// The project's fixture, served by the embedded loopback server; `warmUp` fetches its
    /// 1 KiB `/warmup` before the baseline (false measures the first request of the process).
    case embedded(fixture: FixtureSpec, bandwidthBytesPerSecond: Int?, warmUp: Bool = true)
    /// A server of the user's; `warmupURL` is fetched before the baseline when given (nil: cold).
    case external(url: URL, warmupURL: URL?)
}

extension ImageSource {
    /// Whether every fetch goes to loopback: the embedded server, or a URL (and warm-up URL) whose
    /// host is 127.0.0.0/8, localhost or ::1. Children of such a run refuse any other connection.
    package var isLoopback: Bool {
        switch self {
        case .embedded: return true
        case .external(let url, let warmupURL): return ([url] + (warmupURL.map { [$0] } ?? [])).allSatisfy(\.isLoopback)
        }
    }

    /// A throttled server paces every response in time: what a child holds then depends on timing.
    var isThrottled: Bool {
        if case .embedded(_, let bandwidth?, _) = self { return bandwidth > 0 }
        return false
    }
}

/// Per-trial settings that are the same across the whole matrix.
package struct TrialSettings: Sendable {
    package var maxPixel = 1024
    package var maxImagePixels = DecodeBudget.defaultMaxImagePixels
    package var sampleIntervalNanos = TrialSpec.defaultSampleIntervalNanos
    package var timeoutSeconds: Double = 60
    /// Blocks recorded with their stacks, to name the peak's holders (0: none).
    package var holderThresholdBytes = TrialSpec.defaultHolderThresholdBytes
    package var fixtureCacheDirectory = FixtureGenerator.defaultCacheDirectory
    /// The settle as a fixed pause instead of the rule (`--settle fixed`; `BENCH_SETTLE=fixed` is its alias).
    package var settleIsFixed = TrialSettings.environmentSettleIsFixed
    /// No residency snapshots in the children (`--residency off`; `BENCH_RESIDENCY=off` is its alias).
    package var residencyIsOff = TrialSettings.environmentResidencyIsOff

    package init() {}
}
