import BenchCore
import Harness
import Strategies

/// A committed run's floor by its rule, for results measured before trials.csv had `floor_bytes`:
/// the same `FloorParts.of` the child computes, from the strategy's and renderer's declared rules,
/// the body's size and the source image's size. Rows that have `floor_bytes` keep theirs.
enum RuleFloor {
    /// `bench run`'s default `--max-pixel`, which every committed run used unless its command says otherwise.
    static let defaultMaxPixel = 1024

    /// The floor by role of a built-in cell, or nil when a rule is undeclared or a size is unknown.
    /// A strategy whose rule is the body in memory hands the renderer that body in memory.
    static func parts(
        strategy: String,
        render: RenderMode,
        payloadBytes: Int?,
        sourceWidth: Int?,
        sourceHeight: Int?,
        maxPixel: Int = defaultMaxPixel
    ) -> FloorParts? {
        guard let fetch = StrategyCatalog.strategy(named: strategy)?.floor,
            let shown = RendererCatalog.renderer(named: render.rawValue)?.floor, let payloadBytes
        else { return nil }
        return FloorParts.of(
            fetch: fetch,
            render: shown,
            payloadBytes: payloadBytes,
            bodyInMemory: fetch == .bodyInMemory,
            imageWidth: sourceWidth,
            imageHeight: sourceHeight,
            maxPixel: maxPixel
        )
    }

    /// The runs with `floorBytes` (and, from trials.json, `floorParts`) filled by rule where missing.
    static func filled(
        _ runs: [TrialResult],
        sourceWidth: Int?,
        sourceHeight: Int?,
        maxPixel: Int = defaultMaxPixel
    ) -> [TrialResult] {
        runs.map { run in
            guard run.floorBytes == nil,
                let parts = parts(
                    strategy: run.strategy,
                    render: run.render,
                    payloadBytes: run.payloadBytes,
                    sourceWidth: sourceWidth,
                    sourceHeight: sourceHeight,
                    maxPixel: maxPixel
                )
            else { return run }
            var filled = run
            filled.floorBytes = parts.totalBytes
            filled.floorParts = parts
            return filled
        }
    }

    /// The `--max-pixel` a run's command gave, else the default.
    static func maxPixel(command: String?) -> Int {
        let words = (command ?? "").split(separator: " ")
        guard let flag = words.firstIndex(of: "--max-pixel"), flag + 1 < words.count, let value = Int(words[flag + 1])
        else { return defaultMaxPixel }
        return value
    }
}
