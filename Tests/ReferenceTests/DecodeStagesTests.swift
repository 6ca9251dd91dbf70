import BenchCore
import Foundation
import ReferenceDocuments
import Report
import Testing

/// decode-stages.csv: the stream renderer's profile samples by stage, read into each stage's
/// share of the decode (the process around it, `other`, left out) and its milliseconds of the
/// stream renderer's median CPU time in decode-time.csv.
@Suite struct DecodeStagesTests {
    static let header = "encoding,stage,samples\n"

    /// Shares count the decoding stages only; milliseconds are the share of the median stream time.
    @Test func sharesLeaveTheProcessOutAndMillisecondsComeFromTheMedianTime() throws {
        let stages = try DecodeStages.parse(
            Self.header + "jpeg,entropy decoding,600\njpeg,IDCT and colour conversion,300\n"
                + "jpeg,resampling,100\njpeg,other,5000\njpeg,zlib: inflate and checksums,0\n"
        )
        let shares = stages.shares(of: "jpeg")
        #expect(shares == ["entropy decoding": 0.6, "IDCT and colour conversion": 0.3, "resampling": 0.1])
        let time = try DecodeTime.parse("encoding,pair,stream_cpu_s,thumbnail_cpu_s\njpeg,1,0.2,0.1\njpeg,2,0.4,0.1\n")
        let table = stages.table(time: time)
        #expect(table.contains("| JPEG baseline 4:2:0 | 180 ms (60%) | 90 ms (30%) | 30 ms (10%) | 1000 |"), "\(table)")
        #expect(!table.contains("zlib"), "a stage no encoding has is not a column: \(table)")
        #expect(stages.table(time: nil).contains("| JPEG baseline 4:2:0 | 60% | 30% | 10% | 1000 |"))
    }

    /// Another header, an unknown stage, a stage twice, a bad count or no decoding sample is refused.
    @Test func malformedFilesAreRefused() {
        for text in [
            Self.header,
            "encoding,stage,count\njpeg,resampling,1\n",
            Self.header + "jpeg,decoding,10\n",
            Self.header + "jpeg,resampling,10\njpeg,resampling,10\n",
            Self.header + "jpeg,resampling,-1\n",
            Self.header + "jpeg,resampling,ten\n",
            Self.header + "jpeg,other,10\njpeg,resampling,0\n",
            Self.header + ",resampling,10\n",
        ] {
            #expect(throws: CSVError.self, "\(text)") { try DecodeStages.parse(text) }
        }
    }

    /// The committed profile has every encoding the timing study times, each with its own
    /// decoder's stages: entropy decoding most of a JPEG's, zlib most of the interlaced PNG's.
    @Test func theCommittedProfileHasEveryEncodingAndItsStages() throws {
        let stages = try DecodeStages.parse(try CommittedReportTests.read(DecodeStages.fileName))
        #expect(Set(stages.encodings.map(\.name)) == Set(DecodeTime.targets.keys))
        for encoding in stages.encodings {
            let shares = stages.shares(of: encoding.name)
            let main = encoding.name.hasPrefix("jpeg") ? "entropy decoding" : "zlib: inflate and checksums"
            #expect((shares[main] ?? 0) > 0.5 && (shares[main] ?? 0) < 1, "\(encoding.name): \(shares)")
            #expect(DecodeStages.decodeSamples(encoding.samples) >= 1000, "\(encoding.name): \(encoding.samples)")
        }
    }
}
