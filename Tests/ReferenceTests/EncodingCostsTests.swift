import BenchCore
import Foundation
import Testing
@testable import ReferenceDocuments
@testable import Report

/// The committed encodings.csv against what the decoders' source says each path holds, in heap
/// bytes per source pixel (B/px): the relations REPORT.md's "What the encoding costs" explains.
@Suite struct EncodingCostsTests {
    static let costs = Result {
        try EncodingCosts.parse(String(contentsOf: CommittedReportTests.results.appendingPathComponent("encodings.csv"), encoding: .utf8))
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
            for render in ["full", "thumbnail"] {
                for allocator in ["system", "jemalloc"] {
                    #expect(costs.runs(encoding, render: render, allocator: allocator).count == 3, "\(encoding) \(render) \(allocator)")
                }
            }
            #expect(costs.runs(encoding, tool: "vipsthumbnail", render: "thumbnail").count == 3, "\(encoding)")
        }
    }

    /// A progressive JPEG adds its coefficients, 2 bytes each: 3 B/px at 4:2:0, 6 at 4:4:4, full or thumbnail.
    @Test func progressiveJPEGAddsItsCoefficients() throws {
        for (encoding, baseline, extra) in [("jpeg-progressive", "jpeg", 3.0), ("jpeg-progressive-444", "jpeg-444", 6.0)] {
            for render in ["full", "thumbnail"] {
                let added = try bytesPerPixel(encoding, render) - bytesPerPixel(baseline, render)
                #expect(added > extra - 0.05 && added < extra + 0.05, "\(encoding) \(render): +\(added) B/px")
            }
        }
    }

    /// Streaming thumbnails stay under a quarter of the bitmap (1 B/px); lossless WebP keeps 4 B/px of ARGB.
    @Test func thumbnailsThatStreamAndOneThatCannot() throws {
        for encoding in ["jpeg", "jpeg-444", "png-rgb", "png-rgba", "png-rgb-interlaced", "png-rgba-interlaced", "webp-lossy"] {
            let perPixel = try bytesPerPixel(encoding, "thumbnail")
            #expect(perPixel > 0.25 - 0.01 && perPixel < 1, "\(encoding): \(perPixel) B/px")
        }
        let lossless = try bytesPerPixel("webp-lossless", "thumbnail")
        #expect(lossless > 4 && lossless < 8, "webp-lossless: \(lossless) B/px")
    }

    @Test func aMissingColumnIsNamed() {
        let error = #expect(throws: CSVError.self) { try EncodingCosts.parse("encoding,tool\njpeg,ours\n") }
        #expect(error?.description.contains("render, allocator") == true)
    }
}
