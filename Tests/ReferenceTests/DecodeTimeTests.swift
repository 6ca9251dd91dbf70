import BenchCore
import Foundation
import ReferenceDocuments
import Testing

/// decode-time.csv: the stream and thumbnail renderers timed in pairs, read into the median of the
/// pairs' ratios, its 95% interval and REPORT.md's table.
@Suite struct DecodeTimeTests {
    static let header = "encoding,pair,stream_cpu_s,thumbnail_cpu_s\n"

    /// An encoding's ratio is the median of its pairs' ratios, not the ratio of the two medians
    /// (here 2.00 against 1.50), and the rows of two encodings interleaved stay apart.
    @Test func theRatioIsTheMedianOfThePairsRatios() throws {
        let time = try DecodeTime.parse(
            Self.header + "jpeg,1,2.0,1.0\npng-rgb-interlaced,1,1.0,1.0\njpeg,2,3.0,6.0\njpeg,3,4.0,2.0\n"
        )
        #expect(time.encodings.map(\.name) == ["jpeg", "png-rgb-interlaced"])
        let jpeg = try #require(time.encodings.first)
        #expect(jpeg.ratios == [2.0, 0.5, 2.0])
        #expect(jpeg.ratio == 2.0)
        #expect(DecodeTime.median(jpeg.stream) / DecodeTime.median(jpeg.thumbnail) == 1.5)
        #expect(time.values()["decode_time_pairs"] == "1")
        #expect(DecodeTime.median([4, 1, 3, 2]) == 2.5)
    }

    /// The interval's ranks are n/2 - 0.98 sqrt(n) rounded down and 1 + n/2 + 0.98 sqrt(n) rounded
    /// up (40 and 61 of 100, the textbook's), clamped to the values there are.
    @Test func theIntervalIsTheOrderStatisticsAroundTheMedian() {
        #expect(DecodeTime.medianIntervalRanks(count: 100) == (40, 61))
        #expect(DecodeTime.medianIntervalRanks(count: 41) == (14, 28))
        #expect(DecodeTime.medianIntervalRanks(count: 10) == (1, 10))
        #expect(DecodeTime.medianIntervalRanks(count: 1) == (1, 1))
        let values = (1...41).map(Double.init).shuffled()
        #expect(DecodeTime.medianInterval(values) == (14, 28))
        #expect(DecodeTime.median(values) == 21)
    }

    /// The table gives each encoding's medians, its ratio, the interval and the verdict against its target.
    @Test func theTableSaysTheRatioItsIntervalAndTheTarget() throws {
        var text = Self.header
        for pair in 1...41 {
            text += "jpeg,\(pair),\(1.0 + Double(pair) / 100),1.0\n"
            text += "jpeg-progressive,\(pair),0.9,1.0\n"
        }
        let table = try DecodeTime.parse(text).table()
        #expect(table.contains("| JPEG baseline 4:2:0 | 1.210 | 1.000 | 1.21 | 1.14-1.28 | over 1.10 |"), "\(table)")
        #expect(
            table.contains("| JPEG progressive 4:2:0 | 0.900 | 1.000 | 0.90 | 0.90-0.90 | within 1.00 |"),
            "\(table)"
        )
    }

    /// A file with another header, no pairs, or a time that is not positive is refused.
    @Test func malformedFilesAreRefused() {
        for text in [
            Self.header,
            "encoding,pair,stream_s,thumbnail_s\njpeg,1,1.0,1.0\n",
            Self.header + "jpeg,1,-1.0,1.0\n",
            Self.header + "jpeg,1,1.0,0\n",
            Self.header + "jpeg,one,1.0,1.0\n",
            Self.header + ",1,1.0,1.0\n",
        ] {
            #expect(throws: CSVError.self, "\(text)") { try DecodeTime.parse(text) }
        }
    }

    /// The committed measurement has every encoding the study times, with many pairs each.
    @Test func theCommittedMeasurementHasEveryEncoding() throws {
        let time = try DecodeTime.parse(try CommittedReportTests.read(DecodeTime.fileName))
        #expect(Set(time.encodings.map(\.name)) == Set(DecodeTime.targets.keys))
        #expect(time.encodings.allSatisfy { $0.stream.count >= 30 && $0.stream.count == $0.thumbnail.count })
    }
}
