import BenchCore
import Foundation
import TestSupport
import Testing

/// `bench corpus` over real photographs: Debian's mate-backgrounds, which scripts/setup.sh installs
/// (never committed). A camera JPEG (baseline 4:2:2), a progressive 4:4:4 JPEG and a PNG wallpaper:
/// their facts come from their own headers, and each path's exact heap from the decoders' source
/// (REPORT.md, "What the encoding costs"): a full decode holds the 4-byte RGBA bitmap, plus the
/// whole coefficient buffer for a progressive JPEG (2 bytes per coefficient, 3 full-size components
/// at 4:4:4: 6 bytes a pixel); a thumbnail holds a fraction of that, except for progressive JPEG.
@Suite(.serialized) struct CorpusPhotographTests {
    static let backgrounds = URL(fileURLWithPath: "/usr/share/backgrounds/mate")
    static let photographs = ["nature/Wood.jpg", "abstract/Elephants.jpg", "desktop/Ubuntu-Mate-Cold-no-logo.png"]

    @Test func realPhotographsGiveTheirHeadersFactsAndEachPathsCost() throws {
        let corpus = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: corpus) }
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        for photograph in Self.photographs {
            let source = Self.backgrounds.appendingPathComponent(photograph)
            try #require(
                FileManager.default.fileExists(atPath: source.path),
                "\(source.path) is missing: scripts/setup.sh installs mate-backgrounds (make test runs it)"
            )
            try FileManager.default.copyItem(at: source, to: corpus.appendingPathComponent(source.lastPathComponent))
        }
        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        // Thumbnails at most 256 pixels a side: a small fraction of these 2-5 MP pictures, so that the
        // thumbnail's own bitmap does not hide whether the path ever held the full one.
        let output = try BenchProcess.run([
            "corpus", corpus.path, "--runs", "1", "--max-pixel", "256", "--out", out.path,
        ])
        #expect(output.status == 0, "\(output.standardError)")
        let rows = try JobsTests.rows(out, file: "corpus.csv")
        #expect(rows.count == 6, "3 photographs x full and thumbnail")
        #expect(
            rows.allSatisfy { $0["status"] == "ok" && !($0["peak_heap_exact_delta_bytes"] ?? "").isEmpty },
            "\(rows)"
        )

        func row(_ file: String, _ render: String) throws -> [String: String] {
            try #require(rows.first { $0["file"] == file && $0["render"] == render }, "\(file) \(render)")
        }
        func heapPerPixel(_ file: String, _ render: String) throws -> Double {
            let found = try row(file, render)
            let heap = try #require(Double(found["peak_heap_exact_delta_bytes"] ?? ""))
            let pixels = try #require(Double(found["pixels"] ?? ""))
            return heap / pixels
        }

        // The headers' facts, as the files are (Debian 12's mate-backgrounds 1.26).
        let wood = try row("Wood.jpg", "full")
        #expect(
            [wood["format"], wood["width"], wood["height"], wood["progressive"], wood["chroma_subsampling"]]
                == ["jpeg", "2560", "1920", "0", "4:2:2"]
        )
        let elephants = try row("Elephants.jpg", "full")
        #expect(
            [
                elephants["format"], elephants["width"], elephants["height"], elephants["progressive"],
                elephants["chroma_subsampling"],
            ]
                == ["jpeg", "1920", "1080", "1", "4:4:4"]
        )
        let wallpaper = try row("Ubuntu-Mate-Cold-no-logo.png", "full")
        #expect(
            [wallpaper["format"], wallpaper["width"], wallpaper["height"], wallpaper["alpha"]] == [
                "png", "1920", "1280", "0",
            ]
        )

        // Full: the bitmap (4 B/px) and little else; a progressive 4:4:4 JPEG also holds 6 B/px of coefficients.
        for file in ["Wood.jpg", "Ubuntu-Mate-Cold-no-logo.png"] {
            let full = try heapPerPixel(file, "full")
            #expect(full >= 4.0 && full < 4.6, "\(file) full: \(full) B/px")
        }
        let progressiveFull = try heapPerPixel("Elephants.jpg", "full")
        #expect(progressiveFull >= 9.8 && progressiveFull < 10.8, "Elephants.jpg full: \(progressiveFull) B/px")

        // Thumbnail: under a quarter of the full bitmap where the format allows it (DCT scaling,
        // PNG's row-by-row downscale); a progressive JPEG keeps its coefficients (6 B/px) anyway.
        for file in ["Wood.jpg", "Ubuntu-Mate-Cold-no-logo.png"] {
            let thumbnail = try heapPerPixel(file, "thumbnail")
            #expect(thumbnail > 0 && thumbnail < 1.0, "\(file) thumbnail: \(thumbnail) B/px")
        }
        let progressiveThumbnail = try heapPerPixel("Elephants.jpg", "thumbnail")
        #expect(
            progressiveThumbnail >= 6.0 && progressiveThumbnail < 7.0,
            "Elephants.jpg thumbnail: \(progressiveThumbnail) B/px"
        )
    }
}
