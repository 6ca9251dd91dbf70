import BenchCore
import Foundation
import Harness
import Imaging
import TestSupport
import Testing

/// The stream renderer measured for real: a child fetches the 6000x4000 fixture over loopback to
/// a file and decodes it to 1024 on the long side. Whatever the scan structure, its exact heap
/// peak is the output bitmap plus a bounded working set; hostile bodies are decode_error rows.
@Suite(.serialized) struct StreamRenderTrialTests {
    static let output = (width: 1024, height: 683)
    static var outputBitmap: Int { output.width * output.height * 4 }

    /// At least the output bitmap; at most 1.5 times it plus 1 MB (cursors, a row of
    /// coefficients, the resampler's rows), for progressive 4:2:0 and 4:4:4 and baseline alike.
    @Test(arguments: [FixtureEncoding.jpegProgressive, .jpegProgressive444, .jpeg])
    func heapPeakIsTheOutputBitmapAndLittleMore(_ encoding: FixtureEncoding) throws {
        let spec = FixtureSpec(encoding: encoding)
        let runner = BenchmarkRunner(
            plan: BenchmarkPlan(
                strategies: ["download"],
                renders: [.stream],
                allocators: [.system],
                runs: 1
            ),
            source: .embedded(fixture: spec, bandwidthBytesPerSecond: nil),
            settings: TrialSettings(),
            launcher: ChildProcessLauncher(executable: BenchProcess.executable)
        )
        let row = try #require(try runner.run().first)
        #expect(row.isSuccess, "\(row.error)")
        #expect((row.imageWidth, row.imageHeight) == (Self.output.width, Self.output.height))
        let heap = try #require(row.peakHeapExactDeltaBytes)
        #expect(heap >= Self.outputBitmap, "\(encoding): \(heap) B")
        #expect(heap <= Self.outputBitmap * 3 / 2 + 1_000_000, "\(encoding): \(heap) B")
    }

    /// PNG (Adam7 too) and lossy WebP of one partition without alpha: the exact heap peak is the
    /// output bitmap and at most half as much again (inflate states, rows, libwebp's macroblock
    /// rows and its unconsumed input); the peak RSS within that plus 1 MB. Fetched by libcurl to a
    /// file: what the download task leaves alive beside the decode varies by up to 1 MB a run.
    @Test(arguments: [FixtureEncoding.pngRGB, .pngRGBA, .pngRGBInterlaced, .pngRGBAInterlaced, .webpLossy])
    func pngAndLossyWebPHoldAtMostHalfAnOutputMore(_ encoding: FixtureEncoding) throws {
        let row = try Self.measure(encoding, strategy: "curl-file")
        #expect(row.isSuccess, "\(row.error)")
        #expect((row.imageWidth, row.imageHeight) == (Self.output.width, Self.output.height))
        let heap = try #require(row.peakHeapExactDeltaBytes)
        let rss = try #require(row.peakRSSDeltaBytes)
        #expect(heap >= Self.outputBitmap, "\(encoding): \(heap) B")
        #expect(heap <= Self.outputBitmap * 3 / 2, "\(encoding): \(heap) B")
        #expect(rss >= Self.outputBitmap * 9 / 10, "\(encoding): \(rss) B")
        #expect(rss <= Self.outputBitmap * 3 / 2 + 1_000_000, "\(encoding): \(rss) B")
    }

    /// One child of `strategy` and the stream renderer on the 6000x4000 fixture, system allocator.
    static func measure(_ encoding: FixtureEncoding, strategy: String) throws -> TrialResult {
        let runner = BenchmarkRunner(
            plan: BenchmarkPlan(
                strategies: [strategy],
                renders: [.stream],
                allocators: [.system],
                runs: 1
            ),
            source: .embedded(
                fixture: FixtureSpec(encoding: encoding),
                bandwidthBytesPerSecond: nil
            ),
            settings: TrialSettings(),
            launcher: ChildProcessLauncher(executable: BenchProcess.executable)
        )
        return try #require(try runner.run().first)
    }

    static func progressive() throws -> Data {
        let baseline = try FixtureGenerator.makeJPEG(FixtureSpec(width: 640, height: 480))
        return try JPEGScans.transcode(baseline, to: .libjpegProgressive)
    }

    /// A body that ends early, garbage after a scan header, more scans than the cap: each a
    /// decode_error row that names the problem, from the file and from memory.
    @Test(arguments: ["download", "data"])
    func hostileBodiesAreDecodeErrorRows(strategy: String) throws {
        let file = try Self.progressive()
        var garbage = file
        let scan = try #require(garbage.firstRange(of: Data([0xFF, 0xDA]))).upperBound + 12
        for index in scan..<scan + 3000 { garbage[index] = UInt8(truncatingIfNeeded: index &* 151) | 0x81 }
        let baseline = try FixtureGenerator.makeJPEG(FixtureSpec(width: 64, height: 48))
        let sos = try #require(baseline.firstRange(of: Data([0xFF, 0xDA]))).lowerBound
        var manyScans = baseline[..<sos]
        for _ in 0...StreamJPEGDecoder.maxScans { manyScans += baseline[sos..<(baseline.count - 2)] }
        manyScans += Data([0xFF, 0xD9])
        let cases: [(Data, String)] = [
            (file.prefix(file.count / 2), "the file ends inside the entropy data"),
            (garbage, "JPEG (stream decoder): "),
            (Data(manyScans), "more than \(StreamJPEGDecoder.maxScans) scans"),
        ]
        for (body, message) in cases {
            let (status, row) = try runServedBody(
                body,
                name: "photo.jpg",
                contentType: "image/jpeg",
                ["--strategy", strategy, "--render", "stream"]
            )
            #expect(status == 3)
            #expect(row["status"] == "decode_error", "\(row)")
            #expect(row["error"]?.contains(message) == true, "\(row)")
        }
    }

    /// What `bench render` writes is what the renderer made: the PAM read back holds the same
    /// pixels as the decode run here, and the PPM the same colours.
    @Test func benchRenderWritesTheRenderersPixels() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = folder.appendingPathComponent("photo.jpg")
        try Self.progressive().write(to: image)
        let expected = try ImageDecoder.decodeStreaming(.file(path: image.path), maxPixel: 300)
        let bytes = UnsafeBufferPointer(
            start: expected.pixels.assumingMemoryBound(to: UInt8.self),
            count: expected.byteCount
        )
        for format in ["pam", "ppm"] {
            let out = folder.appendingPathComponent("render.\(format)")
            let run = try BenchProcess.run([
                "render", image.path, "--render", "stream", "--max-pixel", "300",
                "--out", out.path,
            ])
            #expect(run.status == 0, "\(run.standardError)")
            let written = try BitmapFile.decode(Data(contentsOf: out))
            #expect((written.width, written.height) == (300, 225))
            #expect(written.rgba == Array(bytes), "\(format)")
        }
        let png = folder.appendingPathComponent("render.png")
        #expect(try BenchProcess.run(["render", image.path, "--render", "stream", "--out", png.path]).status == 0)
        #expect(try ImageDecoder.inspect(.file(path: png.path)).format == .png)
    }

    /// Each wrong input its own status: a renderer that makes no pixels or an unknown extension
    /// (usage, 64), no such image (66), an image that does not decode (65).
    @Test func benchRenderRefusesBadInput() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = folder.appendingPathComponent("photo.jpg")
        try Self.progressive().prefix(2000).write(to: image)
        let out = folder.appendingPathComponent("out.pam").path
        let none = try BenchProcess.run(["render", image.path, "--render", "none", "--out", out])
        #expect(
            none.status == 64 && none.standardError.contains("valid: full, thumbnail, stream"),
            "\(none.standardError)"
        )
        let gif = try BenchProcess.run(["render", image.path, "--render", "stream", "--out", folder.path + "/out.gif"])
        #expect(gif.status == 64 && gif.standardError.contains("ppm, pam, png"), "\(gif.standardError)")
        let missing = try BenchProcess.run(["render", folder.path + "/none.jpg", "--render", "stream", "--out", out])
        #expect(missing.status == 66, "\(missing.standardError)")
        let truncated = try BenchProcess.run(["render", image.path, "--render", "stream", "--out", out])
        #expect(truncated.status == 65 && truncated.standardError.contains("ends"), "\(truncated.standardError)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
