import BenchCore
import Harness
import Strategies

/// A committed run's floor by its rule, for results measured before trials.csv had `floor_bytes`:
/// the same `FloorParts.of` the child computes, from the strategy's and renderer's declared rules,
/// the body's size and the source image's size. Rows that have `floor_bytes` keep theirs.
enum RuleFloor {
    /// The floor by role of a built-in cell, or nil when a rule is undeclared or a size is unknown: the
    /// image's, or for a scaled renderer the `--max-pixel` its folder recorded (settings.json).
    /// A strategy whose rule is the body in memory hands the renderer that body in memory.
    static func parts(
        strategy: String,
        render: RenderMode,
        payloadBytes: Int?,
        sourceWidth: Int?,
        sourceHeight: Int?,
        maxPixel: Int?
    ) -> FloorParts? {
        guard let fetch = StrategyCatalog.strategy(named: strategy)?.floor,
            let shown = RendererCatalog.renderer(named: render.rawValue)?.floor, let payloadBytes,
            shown != .scaledBitmap || maxPixel != nil
        else { return nil }
        return FloorParts.of(
            fetch: fetch,
            render: shown,
            payloadBytes: payloadBytes,
            bodyInMemory: fetch == .bodyInMemory,
            imageWidth: sourceWidth,
            imageHeight: sourceHeight,
            maxPixel: maxPixel ?? 0
        )
    }

    /// The runs with `floorBytes` (and, from trials.json, `floorParts`) filled by rule where missing.
    static func filled(
        _ runs: [TrialResult],
        sourceWidth: Int?,
        sourceHeight: Int?,
        maxPixel: Int?
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
}
