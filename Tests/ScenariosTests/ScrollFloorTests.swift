import BenchCore
import Foundation
import Scenarios
import Testing

/// The scroll's floor: the bitmaps of the rows on screen at once, the largest window of
/// `visibleRows` consecutive rows over the fixtures they cycle through, by the renderer's rule.
@Suite struct ScrollFloorTests {
    static let sizes = [(width: 6000, height: 4000), (width: 800, height: 600), (width: 3000, height: 2000)]

    /// Full decodes hold width x height x 4 a row; the largest window of two rows is the 24 MP
    /// image beside the 6 MP one (rows 2 and 3 of the cycle, 2 and 0), never three rows.
    @Test func fullDecodesHoldTheLargestWindowsBitmaps() {
        let floor = ScrollFloor.bytes(sizes: Self.sizes, rows: 60, visibleRows: 2, render: .full, maxPixel: 256)
        #expect(floor == (6000 * 4000 + 3000 * 2000) * 4)
    }

    /// Thumbnails and stream renders hold each row's bitmap at --max-pixel, aspect kept, never upscaled.
    @Test func scaledRendersHoldTheirBitmapsAtMaxPixel() {
        let small = [(width: 200, height: 100), (width: 6000, height: 4000)]
        for render in [RenderMode.thumbnail, .stream] {
            let floor = ScrollFloor.bytes(sizes: small, rows: 10, visibleRows: 3, render: render, maxPixel: 256)
            // Three rows: two 256x171 and one 200x100 (never upscaled), or the other way round.
            #expect(floor == (2 * 256 * 171 + 200 * 100) * 4, "\(render)")
        }
        #expect(ScrollFloor.bytes(sizes: small, rows: 10, visibleRows: 3, render: .none, maxPixel: 256) == 0)
        #expect(
            ScrollFloor.bytes(
                sizes: small,
                rows: 10,
                visibleRows: 3,
                render: RenderMode(rawValue: "mine"),
                maxPixel: 256
            ) == nil
        )
    }

    /// A list shorter than the window holds all its rows; only windows that exist count.
    @Test func aShortListHoldsAllItsRowsAndNoMore() {
        #expect(
            ScrollFloor.bytes(sizes: Self.sizes, rows: 2, visibleRows: 8, render: .full, maxPixel: 256)
                == (6000 * 4000 + 800 * 600) * 4
        )
        #expect(ScrollFloor.bytes(sizes: Self.sizes, rows: 0, visibleRows: 8, render: .full, maxPixel: 256) == nil)
    }

    /// A list-scroll.csv row gets the floor of its settings, and the written column says the same.
    @Test func aRowsFloorComesFromItsSettings() throws {
        var result = ListScrollCSVTests.result(sizes: ["6000x4000", "800x600"])
        result.floorBytes = ScrollFloor.bytes(
            sizes: [(6000, 4000), (800, 600)],
            rows: 60,
            visibleRows: 8,
            render: .thumbnail,
            maxPixel: result.spec.maxPixel
        )
        let text = try ListScrollCSV.appending([result], runID: "r", to: "", path: "s.csv")
        let row = try #require(try ListScrollCSV.groups(text, path: "s.csv").first?.rows.first)
        let expected = (4 * 256 * 171 + 4 * 256 * 192) * 4
        #expect(row["floor_bytes"] == String(expected))
        #expect(ScrollFloor.bytes(row: row) == expected)
    }
}
