import BenchCore
import Foundation
import Imaging
import TestSupport
import Testing

/// Metadata before the image data is skipped, never held: a JPEG behind 8 MB of APP1 (XMP as a
/// photo export writes it), a PNG behind 8 MB of tEXt and a lossy WebP behind an 8 MB ICCP, fetched by the download task to a file and
/// rendered by `stream` in a real child, cost the output bitmap and at most half as much again plus
/// 64 KiB of exact heap: no more than the same image without its metadata.
@Suite(.serialized) struct MetadataTrialTests {
    static let metadataBytes = 8 * 1024 * 1024
    static let side = 1024

    @Test func aJPEGsEightMegabytesOfAPP1AreNotHeld() throws {
        let jpeg = try FixtureGenerator.makeJPEG(FixtureSpec(width: Self.side, height: Self.side))
        try Self.expectOutputBitmapOnly(
            MetadataPadding.jpeg(jpeg, app1Bytes: Self.metadataBytes),
            name: "photo.jpg",
            contentType: "image/jpeg"
        )
    }

    @Test func aPNGsEightMegabytesOfTextAreNotHeld() throws {
        let png = try FixtureGenerator.make(FixtureSpec(width: Self.side, height: Self.side, encoding: .pngRGB))
        try Self.expectOutputBitmapOnly(
            MetadataPadding.png(png, textBytes: Self.metadataBytes),
            name: "photo.png",
            contentType: "image/png"
        )
    }

    /// Lossy WebP, an ICC profile before the image chunk (the extended format's order).
    @Test func aWebPsEightMegabytesOfProfileAreNotHeld() throws {
        let webp = try FixtureGenerator.make(FixtureSpec(width: Self.side, height: Self.side, encoding: .webpLossy))
        try Self.expectOutputBitmapOnly(
            MetadataPadding.webp(webp, width: Self.side, height: Self.side, iccBytes: Self.metadataBytes),
            name: "photo.webp",
            contentType: "image/webp"
        )
    }

    static func expectOutputBitmapOnly(_ body: Data, name: String, contentType: String) throws {
        #expect(body.count > metadataBytes)
        let (status, row) = try runServedBody(
            body,
            name: name,
            contentType: contentType,
            ["--strategy", "download", "--render", "stream"]
        )
        #expect(status == 0 && row["status"] == "ok", "\(row)")
        let output = StreamResampling.outputSize(width: side, height: side, maxPixel: 1024)
        #expect(row["image_width"] == "\(output.width)" && row["image_height"] == "\(output.height)", "\(row)")
        let bitmap = output.width * output.height * 4
        let heap = try #require(row["peak_heap_exact_delta_bytes"].flatMap { Int($0) }, "\(row)")
        #expect(heap >= bitmap, "\(name): \(heap) B")
        #expect(heap <= bitmap * 3 / 2 + 64 * 1024, "\(name): \(heap) B")
    }
}
