import Foundation
import Imaging
import TestSupport
import Testing

/// `bench corpus --render stream` over JPEGs the stream decoder must refuse: each is a
/// decode_error row naming the feature it does not support or where the file stops making
/// sense, measured in a real child, and the good file beside them is still measured.
@Suite(.serialized) struct StreamJPEGHostileCorpusTests {
    static func baseline() throws -> Data { try FixtureGenerator.makeJPEG(FixtureSpec(width: 64, height: 48)) }

    /// The index just past the first `marker` (0xFF, code) of `file`.
    static func after(_ code: UInt8, in file: Data) throws -> Int {
        try #require(file.firstRange(of: Data([0xFF, code]))).upperBound
    }

    /// The hostile files, each with what its row's error must say.
    static func hostileFiles() throws -> [String: (bytes: Data, says: String)] {
        let baseline = try baseline()
        // Large enough that each scan's entropy data is hundreds of bytes.
        let progressive = try JPEGScans.transcode(
            try FixtureGenerator.makeJPEG(FixtureSpec(width: 640, height: 480)),
            to: .libjpegProgressive
        )

        var claimsLarger = baseline  // a 64x48 scan under a frame header that claims 640x480
        let frame = try after(0xC0, in: claimsLarger)
        claimsLarger.replaceSubrange(frame + 3..<frame + 7, with: [0x01, 0xE0, 0x02, 0x80])
        var claimsSmaller = baseline  // ... and one that claims 64x16
        claimsSmaller.replaceSubrange(frame + 3..<frame + 5, with: [0x00, 0x10])

        // Cut inside the third scan's entropy data.
        var scanStarts: [Int] = []
        var from = progressive.startIndex
        while let sos = progressive[from...].firstRange(of: Data([0xFF, 0xDA])) {
            scanStarts.append(sos.upperBound)
            from = sos.upperBound
        }
        let thirdScan = try #require(scanStarts.dropFirst(2).first)
        let cut = progressive.prefix(thirdScan + 60)

        var markerInside = progressive  // an EOI in the first scan's entropy data
        let firstData = try #require(scanStarts.first) + 14
        markerInside.replaceSubrange(firstData..<firstData + 2, with: [0xFF, 0xD9])

        // Every DHT segment left out of a progressive file (a sequential one decodes with the standard tables).
        let progressiveBaseline = try JPEGScans.transcode(baseline, to: .libjpegProgressive)
        var noTables = Data()
        var at = progressiveBaseline.startIndex
        while let dht = progressiveBaseline[at...].firstRange(of: Data([0xFF, 0xC4])) {
            noTables += progressiveBaseline[at..<dht.lowerBound]
            let length =
                Int(progressiveBaseline[dht.lowerBound + 2]) << 8 | Int(progressiveBaseline[dht.lowerBound + 3])
            at = dht.lowerBound + 2 + length
        }
        noTables += progressiveBaseline[at...]

        // 999 AC scans over a 4000x4000 frame: more blocks x scans than the work budget allows.
        let manyPasses = JPEGScans.skeleton(
            width: 4000,
            height: 4000,
            components: 1,
            scans: [JPEGScans.Scan([0], 0, 0, 0, 0)] + Array(repeating: JPEGScans.Scan([0], 1, 63, 0, 0), count: 999)
        )

        let sos = try after(0xDA, in: baseline) - 2
        var manyScans = baseline[..<sos]
        for _ in 0...StreamJPEGDecoder.maxScans { manyScans += baseline[sos..<(baseline.count - 2)] }
        manyScans += Data([0xFF, 0xD9])

        var twelveBit = baseline
        twelveBit[try after(0xC0, in: twelveBit) + 2] = 12  // the frame's sample precision

        let arithmetic = try TestImages.jpeg(
            width: 64,
            height: 48,
            space: .rgb,
            color: [10, 200, 30],
            arithmetic: true
        )
        return [
            "claims-larger.jpg": (claimsLarger, "scan 1: its entropy data ends early, at marker 0xFFD9 (MCU row 0)"),
            "claims-smaller.jpg": (
                claimsSmaller,
                "scan 1: entropy data goes on after the last block of the 64x16 frame"
            ),
            "cut-in-scan-3.jpg": (Data(cut), "the file ends inside the entropy data of scan 3"),
            "marker-inside.jpg": (markerInside, "scan 1: its entropy data ends early, at marker 0xFFD9"),
            "no-huffman-tables.jpg": (noTables, "uses DC Huffman table 0, which no DHT defined"),
            "too-many-scans.jpg": (Data(manyScans), "more than \(StreamJPEGDecoder.maxScans) scans"),
            "over-work-budget.jpg": (manyPasses, "work budget passed at scan"),
            "twelve-bit.jpg": (twelveBit, "12-bit samples are not supported"),
            "arithmetic.jpg": (arithmetic, "arithmetic coding (marker 0xFFC9) is not supported"),
        ]
    }

    @Test func eachHostileFileIsADecodeErrorRowNamingWhy() throws {
        let corpus = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: corpus) }
        let hostile = try Self.hostileFiles()
        for (name, file) in hostile { try file.bytes.write(to: corpus.appendingPathComponent(name)) }
        try JPEGScans.transcode(try Self.baseline(), to: .libjpegProgressive)
            .write(to: corpus.appendingPathComponent("good.jpg"))

        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let output = try BenchProcess.run(
            [
                "corpus", corpus.path, "--render", "stream", "--runs", "1",
                "--out", out.path,
            ],
            timeout: 300
        )
        #expect(output.status == 3, "some runs failed, none trapped: \(output.standardError)")
        let rows = try JobsTests.rows(out, file: "corpus.csv")
        let byFile = Dictionary(grouping: rows, by: { $0["file"]! })
        #expect(Set(byFile.keys) == Set(hostile.keys).union(["good.jpg"]))
        #expect(byFile["good.jpg"]?.map { $0["status"] } == ["ok"], "\(byFile["good.jpg"] ?? [])")
        for (name, file) in hostile {
            let row = try #require(byFile[name]?.first, "\(name)")
            #expect(byFile[name]?.count == 1, "\(name)")
            #expect(row["status"] == "decode_error", "\(name): \(row)")
            #expect(row["error"]?.contains(file.says) == true, "\(name): \(row["error"] ?? "")")
        }
    }
}
