import BenchCore
import Foundation
import ReferenceDocuments
import Report
import Testing

/// The committed encodings.csv against what the decoders' source says each path holds, in heap
/// bytes per source pixel (B/px): the relations REPORT.md's "What the encoding costs" explains.
@Suite struct EncodingCostsTests {
    static let costs = Result {
        try EncodingCosts.parse(
            String(contentsOf: CommittedReportTests.results.appendingPathComponent("encodings.csv"), encoding: .utf8)
        )
    }

    func bytesPerPixel(_ encoding: String, _ render: String) throws -> Double {
        let costs = try Self.costs.get()
        let heap = try #require(costs.heap(encoding, render: render)?.median, "\(encoding) \(render)")
        return heap / Double(costs.pixels(encoding))
    }

    @Test func everyEncodingEveryCellAndThePeerWereMeasured() throws {
        let costs = try Self.costs.get()
        #expect(costs.encodings.count == 12)
        for encoding in costs.encodings {
            for render in ["full", "thumbnail", "stream"] {
                for allocator in ["system", "jemalloc"] {
                    #expect(
                        costs.runs(encoding, render: render, allocator: allocator).count == 3,
                        "\(encoding) \(render) \(allocator)"
                    )
                }
            }
            #expect(costs.runs(encoding, tool: "vipsthumbnail", render: "thumbnail").count == 3, "\(encoding)")
        }
    }

    /// A progressive JPEG adds its coefficients, 2 bytes each: 3 B/px at 4:2:0, 6 at 4:4:4, full or thumbnail.
    @Test func progressiveJPEGAddsItsCoefficients() throws {
        for (encoding, baseline, extra) in [
            ("jpeg-progressive", "jpeg", 3.0), ("jpeg-progressive-444", "jpeg-444", 6.0),
        ] {
            for render in ["full", "thumbnail"] {
                let added = try bytesPerPixel(encoding, render) - bytesPerPixel(baseline, render)
                #expect(added > extra - 0.05 && added < extra + 0.05, "\(encoding) \(render): +\(added) B/px")
            }
        }
    }

    /// Streaming thumbnails stay under a quarter of the bitmap (1 B/px); lossless WebP keeps 4 B/px of ARGB.
    @Test func thumbnailsThatStreamAndOneThatCannot() throws {
        for encoding in [
            "jpeg", "jpeg-444", "png-rgb", "png-rgba", "png-rgb-interlaced", "png-rgba-interlaced", "webp-lossy",
        ] {
            let perPixel = try bytesPerPixel(encoding, "thumbnail")
            #expect(perPixel > 0.25 - 0.01 && perPixel < 1, "\(encoding): \(perPixel) B/px")
        }
        let lossless = try bytesPerPixel("webp-lossless", "thumbnail")
        #expect(lossless > 4 && lossless < 8, "webp-lossless: \(lossless) B/px")
    }

    /// The stream renderer holds its output bitmap and a bounded working set: an exact heap peak of at
    /// least the bitmap and at most 1.5 times it, and a peak RSS at most that plus 1 MB, for every
    /// JPEG (progressive included), PNG (interlaced included) and lossy WebP. Lossless WebP, HEIC and
    /// AVIF keep the whole image in their libraries: over ten times the bitmap.
    @Test func streamRendersHoldTheirOutputAndABoundedWorkingSet() throws {
        let costs = try Self.costs.get()
        let streaming = [
            "jpeg", "jpeg-progressive", "jpeg-444", "jpeg-progressive-444", "png-rgb", "png-rgb-interlaced",
            "png-rgba", "png-rgba-interlaced", "webp-lossy",
        ]
        for encoding in costs.encodings {
            let bitmap = Double(try #require(costs.streamBitmap(encoding), "\(encoding)"))
            let heap = try #require(costs.heap(encoding, render: "stream")?.median, "\(encoding)")
            let rss = try #require(costs.rss(encoding, render: "stream")?.median, "\(encoding)")
            if streaming.contains(encoding) {
                #expect(heap >= bitmap && heap <= 1.5 * bitmap, "\(encoding): heap \(heap) for a bitmap of \(bitmap)")
                #expect(rss >= 0.9 * bitmap && rss <= 1.5 * bitmap + 1_000_000, "\(encoding): RSS \(rss)")
            } else {
                #expect(
                    heap > 10 * bitmap && heap < 100 * bitmap,
                    "\(encoding): heap \(heap) for a bitmap of \(bitmap)"
                )
            }
        }
    }

    /// With stream rows the table gets the stream renderer's columns beside the thumbnail's: its RSS,
    /// exact heap, output bitmap and decode time, and the thumbnail's decode time.
    @Test func streamRowsGetTheirColumns() throws {
        let header =
            "encoding,tool,render,allocator,run,payload_bytes,image_width,image_height,output_width,output_height,"
            + "peak_rss_delta_bytes,peak_heap_delta_bytes,status,error,tool_version,render_seconds"
        let rows = [
            "png-rgb,ours,full,system,1,62000000,6000,4000,6000,4000,97000000,96000000,ok,,,3.10",
            "png-rgb,ours,thumbnail,system,1,62000000,6000,4000,1500,1000,7600000,7400000,ok,,,2.40",
            "png-rgb,ours,stream,system,1,62000000,6000,4000,1024,683,3900000,3100000,ok,,,2.90",
            "png-rgb,vipsthumbnail,thumbnail,system,1,62000000,6000,4000,1500,1000,30000000,,ok,,libvips 8.14.1,",
        ]
        let costs = try EncodingCosts.parse(([header] + rows).joined(separator: "\n") + "\n")
        let table = costs.table()
        #expect(
            table.contains(
                "| stream RSS MB | stream heap MB | stream bitmap MB | stream decode s | thumbnail decode s |"
            )
        )
        #expect(table.contains("| 3.9 (3.9-3.9) | 3.1 | 2.8 | 2.90 | 2.40 |"), "\(table)")
        #expect(costs.values()["enc_png_rgb_stream_heap_mb"] == "3.1")
    }

    @Test func aMissingColumnIsNamed() {
        let error = #expect(throws: CSVError.self) { try EncodingCosts.parse("encoding,tool\njpeg,ours\n") }
        #expect(error?.description.contains("render, allocator") == true)
    }
}
