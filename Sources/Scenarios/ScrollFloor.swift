import BenchCore
import Harness

/// The least a scroll must hold at once: the bitmaps of the rows on screen. Rows cycle over the
/// fixtures, so the floor is the largest sum of the bitmaps of `visibleRows` consecutive rows, each
/// by the renderer's declared rule (`RenderFloor`: width x height x 4 for `full`, the same at
/// `maxPixel` on the long side, aspect kept, never upscaled, for `thumbnail` and `stream`, nothing
/// for `none`). Bodies, requests in flight, decoders' working state and a cache beyond the rows on
/// screen are excess over it.
package enum ScrollFloor {
    /// Nil for a renderer without a declared rule or when there are no fixtures.
    package static func bytes(
        sizes: [(width: Int, height: Int)],
        rows: Int,
        visibleRows: Int,
        render: RenderMode,
        maxPixel: Int
    ) -> Int? {
        guard !sizes.isEmpty, rows > 0, visibleRows > 0,
            let rule = RendererCatalog.renderer(named: render.rawValue)?.floor
        else { return nil }
        let perRow = sizes.map { rule.bitmapBytes(width: $0.width, height: $0.height, maxPixel: maxPixel) }
        guard !perRow.contains(nil) else { return nil }
        let bitmaps = perRow.compactMap { $0 }
        let window = min(visibleRows, rows)
        // Windows starting at each row; after one cycle of fixtures the sums repeat.
        return (0...max(0, min(rows - window, bitmaps.count - 1))).map { start in
            (start..<start + window).reduce(0) { $0 + bitmaps[$1 % bitmaps.count] }
        }.max()
    }

    /// The floor of a list-scroll.csv row, from its settings (`sizes`, `rows`, `visible_rows`, `render`,
    /// `max_pixel`).
    package static func bytes(row: [String: String]) -> Int? {
        let sizes = ListScrollCSV.fixtureSizes(row["sizes"] ?? "")
        guard let rows = row["rows"].flatMap(Int.init), let visible = row["visible_rows"].flatMap(Int.init),
            let render = row["render"].flatMap(RenderMode.init(name:)),
            let maxPixel = row["max_pixel"].flatMap(Int.init)
        else { return nil }
        return bytes(sizes: sizes, rows: rows, visibleRows: visible, render: render, maxPixel: maxPixel)
    }
}
