import Foundation
import TestSupport
import Testing

/// `bench corpus` over JPEGs in CMYK and YCCK, an arithmetic-coded JPEG and a palette PNG made
/// by the real libjpeg and libpng: each is measured, and labelled by what it is.
@Suite(.serialized) struct ColorSpaceCorpusTests {
    @Test func cmykYCCKArithmeticAndPaletteAreMeasuredAndLabelled() throws {
        let corpus = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: corpus) }
        let red: [UInt8] = [255, 0, 0, 255]  // CMYK as Adobe stores it: full magenta and yellow ink
        let files: [String: (bytes: Data, label: String)] = [
            "cmyk.jpg": (
                try TestImages.jpeg(width: 64, height: 48, space: .cmyk, color: red), "jpeg baseline 1x1,1x1,1x1,1x1"
            ),
            "ycck.jpg": (
                try TestImages.jpeg(width: 64, height: 48, space: .ycck, color: red), "jpeg baseline 2x2,1x1,1x1,2x2"
            ),
            "arithmetic.jpg": (
                try TestImages.jpeg(width: 64, height: 48, space: .rgb, color: [20, 140, 220], arithmetic: true),
                "jpeg arithmetic 4:2:0"
            ),
            "palette.png": (
                try TestImages.palettePNG(width: 64, height: 48, left: [250, 10, 10], right: [10, 10, 250]),
                "png palette"
            ),
        ]
        for (name, file) in files { try file.bytes.write(to: corpus.appendingPathComponent(name)) }

        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let output = try BenchProcess.run(["corpus", corpus.path, "--runs", "1", "--out", out.path])
        #expect(output.status == 0, "every run succeeds: \(output.standardError.suffix(1500))")
        let rows = try JobsTests.rows(out, file: "corpus.csv")
        let byFile = Dictionary(grouping: rows, by: { $0["file"]! })
        for (name, file) in files {
            let runs = try #require(byFile[name])
            #expect(runs.count == 2, "full and thumbnail: \(name)")
            for row in runs {
                #expect(
                    row["status"] == "ok" && row["encoding"] == file.label,
                    "\(name): \(row["status"]!) \(row["encoding"]!) \(row["error"]!)"
                )
            }
            #expect(runs.contains { $0["width"] == "64" && $0["height"] == "48" }, "\(name)")
        }
    }
}
