import Foundation
import TestSupport
import Testing

/// `bench corpus` inspects every header in the parent: files whose headers claim absurd or zero
/// sizes must each be a row naming the size, and the parent must go on to measure the good image.
@Suite(.serialized) struct HostileHeaderCorpusTests {
    @Test func hostileSizesAreRowsAndTheGoodImageIsMeasured() throws {
        let corpus = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: corpus) }
        let made = InProcessBench.run([
            "fixture", "--width", "320", "--height", "200", "--out", corpus.appendingPathComponent("good.jpg").path,
        ])
        try #require(made.status == 0, "\(made.standardError)")
        let hostile: [String: (bytes: Data, names: String)] = [
            "huge.png": (HostileHeaders.png(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF), "4294967295x4294967295"),
            "huge.heic": (HostileHeaders.heic(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF), "4294967295x4294967295"),
            "zero-width.webp": (HostileHeaders.webpVP8(width: 0, height: 100), "0x100"),
            "zero-height.jpg": (HostileHeaders.jpeg(width: 100, height: 0), "100x0"),
        ]
        for (name, file) in hostile { try file.bytes.write(to: corpus.appendingPathComponent(name)) }

        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let output = try BenchProcess.run(["corpus", corpus.path, "--runs", "1", "--out", out.path])
        #expect(output.status == 3, "some runs failed, none trapped: \(output.status) \(output.standardError)")
        let rows = try JobsTests.rows(out, file: "corpus.csv")
        let byFile = Dictionary(grouping: rows, by: { $0["file"]! })
        #expect(Set(byFile.keys) == Set(hostile.keys).union(["good.jpg"]))
        let good = try #require(byFile["good.jpg"])
        #expect(good.count == 2 && good.allSatisfy { $0["status"] == "ok" && $0["width"] == "320" }, "\(good)")
        for (name, file) in hostile {
            let runs = try #require(byFile[name])
            #expect(runs.count == 2, "full and thumbnail: \(name)")
            for row in runs {
                #expect(row["status"] == "decode_error" && row["error"]!.contains(file.names), "\(name): \(row)")
            }
        }
    }
}
