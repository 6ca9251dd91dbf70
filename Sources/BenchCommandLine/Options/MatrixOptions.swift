import ArgumentParser
import Foundation
import BenchCore
import Harness
import Probe
import Strategies

/// A built-in renderer or one the user's executable registered; anything else is a usage error
/// that lists `allValueStrings`.
extension RenderMode: ExpressibleByArgument {
    public init?(argument: String) {
        guard RendererCatalog.renderer(named: argument) != nil else { return nil }
        self.init(rawValue: argument)
    }
    public static var allValueStrings: [String] { RendererCatalog.names }
    public static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
extension Allocator: ExpressibleByArgument {}

/// What to measure: the strategy x renderer x allocator matrix and how many runs of each.
struct MatrixOptions: ParsableArguments {
    @Option(name: .customLong("strategy"), parsing: .singleValue,
            help: ArgumentHelp("Strategy to measure; repeat for several, or 'all'. See `bench list`. (default: data and download, the article's two)",
                               valueName: "name"))
    var strategies: [StrategyName] = []

    @Option(name: .customLong("render"), parsing: .singleValue,
            help: ArgumentHelp("Renderer to measure; repeat for several. See `bench list`. (default: none and full)", valueName: "name"))
    var renders: [RenderMode] = []

    @Option(name: .customLong("allocator"), parsing: .singleValue,
            help: "Allocator of the measured child: system or jemalloc; repeat for both. (default: both)")
    var allocators: [Allocator] = []

    @Option(help: "Runs per cell, each in a fresh child process.")
    var runs = 5

    var strategyNames: [String] {
        StrategySelection.names(strategies, whenEmpty: MatrixOptions.articleStrategies)
    }

    /// The article's two code paths: the default, so a bare `bench` reproduces its table.
    static let articleStrategies = ["data", "download"]

    var plan: BenchmarkPlan {
        BenchmarkPlan(strategies: strategyNames,
                      renders: renders.isEmpty ? [.none, .full] : renders.uniqued(),
                      allocators: allocators.isEmpty ? Allocator.allCases : allocators.uniqued(),
                      runs: runs)
    }

    func validate() throws {
        try StrategySelection.validate(strategies, allowingCalibration: true)
        guard (1...10_000).contains(runs) else {
            throw ValidationError("--runs must be between 1 and 10000 (got \(runs))")
        }
    }
}
