import ArgumentParser
import BenchCore
import Foundation
import Harness
import Probe
import Strategies

/// A built-in renderer or one the user's executable registered; anything else is a usage error
/// that lists `allValueStrings`.
extension RenderMode: ExpressibleByArgument {
    package init?(argument: String) {
        guard RendererCatalog.renderer(named: argument) != nil else { return nil }
        self.init(rawValue: argument)
    }
    package static var allValueStrings: [String] { RendererCatalog.names }
    package static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
extension Allocator: ExpressibleByArgument {}

/// What to measure: the strategy x renderer x allocator matrix and how many runs of each, with the
/// defaults of the command that measures it (`D`: run, corpus).
struct MatrixOptions<D: MatrixDefaults>: ParsableArguments {
    @OptionGroup var strategy: StrategyOption<D>
    @OptionGroup var render: RenderOption<D>
    @OptionGroup var allocator: AllocatorOption<D>
    @OptionGroup var runsOption: RunsOption<D>

    var runs: Int { runsOption.runs }

    var strategyNames: [String] { strategy.names }

    var plan: BenchmarkPlan {
        BenchmarkPlan(strategies: strategyNames, renders: render.modes, allocators: allocator.allocators, runs: runs)
    }
}
