import ArgumentParser
import BenchCore
import Foundation
import Harness
import Strategies

/// `bench _trial-spec`: the spec `bench run` gives one trial, as JSON on stdout, so that a tool
/// running a trial standalone (`bench _trial --stdout --spec-file`, under heaptrack or valgrind:
/// scripts/validate.py) measures it exactly as a run does, its settle rule included.
struct TrialSpecCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_trial-spec",
        abstract: "Print the spec `bench run` would give one trial (internal: for scripts/validate.py).",
        shouldDisplay: false
    )

    @Option(help: "The trial's strategy.") var strategy: String
    @Option(help: "The trial's renderer.") var render: String
    @Option(help: "The trial's allocator.") var allocator = Allocator.system.rawValue
    @Option(help: "The URL the trial fetches.") var url: String
    @Option(help: "The URL fetched before the baseline (default: none).") var warmupURL: String?
    @Option(help: "The trial's work folder.") var workDirectory: String
    @OptionGroup var limits: DecodeLimitOptions<RunCommand>
    @OptionGroup(title: "Sampling") var timing: TrialTimingOptions

    func run() throws {
        // The calibration strategies too: scripts/validate.py runs calibration-spike as its known answer.
        guard StrategyCatalog.strategy(named: strategy) != nil else {
            let valid = StrategyCatalog.names + StrategyCatalog.calibration.map { $0.name }
            throw ValidationError("--strategy '\(strategy)' is not a strategy; valid: \(valid.joined(separator: ", "))")
        }
        guard RendererCatalog.names.contains(render), let render = RenderMode(name: render) else {
            throw ValidationError(
                "--render '\(render)' is not a renderer; valid: \(RendererCatalog.names.joined(separator: ", "))"
            )
        }
        guard let allocator = Allocator(rawValue: allocator) else {
            throw ValidationError(
                "--allocator '\(allocator)' is not valid; valid: "
                    + Allocator.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        let measured = try RunCommand.httpURL(url, option: "--url")
        let warmup = try warmupURL.map { try RunCommand.httpURL($0, option: "--warmup-url") }
        var settings = TrialSettings()
        settings.maxPixel = limits.maxPixel
        settings.maxImagePixels = limits.maxImagePixels
        timing.apply(to: &settings)
        let spec = settings.spec(
            for: TrialCell(strategy: strategy, render: render, allocator: allocator),
            run: 1,
            url: measured,
            warmupURL: warmup,
            workDirectory: URL(fileURLWithPath: workDirectory, isDirectory: true)
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(spec), as: UTF8.self))
    }
}
