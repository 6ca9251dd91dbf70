import BenchCore
import Foundation
import ReferenceDocuments
import Testing

/// progressive-time.csv: the samples of the stream renderer's progressive decode and of the
/// DCT-scaled one, read into the medians, their ratio and the target REPORT.md quotes.
@Suite struct ProgressiveTimeTests {
    /// The medians and their ratio are the samples', per benchmark, whatever the rows' order.
    @Test func mediansAndRatioComeFromEachBenchmarksSamples() throws {
        let text = """
            benchmark,sample,wall_ms
            progressive-stream,1,900.0
            progressive-thumbnail,1,800.0
            progressive-stream,2,1100.0
            progressive-thumbnail,2,700.0
            progressive-stream,3,1000.0
            progressive-thumbnail,3,750.0

            """
        let time = try ProgressiveTime.parse(text)
        #expect(time.stream.median == 1000 && time.thumbnail.median == 750)
        let values = time.values()
        #expect(values["progressive_stream_ms"] == "1000" && values["progressive_thumbnail_ms"] == "750")
        #expect(values["progressive_stream_ratio"] == "1.33" && values["progressive_stream_within_target"] == "within")
        #expect(values["progressive_stream_range_ms"] == "900-1100" && values["progressive_time_samples"] == "3")
        let slow = try ProgressiveTime.parse(
            text.replacingOccurrences(of: "1100.0", with: "1300.0")
                .replacingOccurrences(of: "1000.0", with: "1200.0")
        )
        #expect(
            slow.values()["progressive_stream_ratio"] == "1.60"
                && slow.values()["progressive_stream_within_target"] == "over"
        )
    }

    /// A file without both benchmarks, with another header or with a time that is not positive is refused.
    @Test func incompleteOrMalformedFilesAreRefused() {
        let header = "benchmark,sample,wall_ms\n"
        for text in [
            header + "progressive-stream,1,900\n",
            "benchmark,iteration,ms\nprogressive-stream,1,900\nprogressive-thumbnail,1,800\n",
            header + "progressive-stream,1,-5\nprogressive-thumbnail,1,800\n",
            header + "progressive-stream,one,900\nprogressive-thumbnail,1,800\n",
        ] {
            #expect(throws: CSVError.self, "\(text)") { try ProgressiveTime.parse(text) }
        }
    }

    /// The committed measurement has several samples of each benchmark, taken in one run.
    @Test func theCommittedMeasurementHasBothBenchmarks() throws {
        let text = try CommittedReportTests.read(ProgressiveTime.fileName)
        let time = try ProgressiveTime.parse(text)
        #expect(time.stream.count >= 5 && time.stream.count <= 20)
        #expect(time.thumbnail.count >= 5 && time.thumbnail.count <= 20)
    }
}
