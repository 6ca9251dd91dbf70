import BenchCore
import Foundation
import LoopbackServer
import Report
import TestSupport
import Testing

/// A 100-byte JPEG claiming 60000x60000 pixels (14.4 GB of RGBA) fetched by a real child:
/// refused before allocating, as a decode_error row that names the size and the option.
@Suite(.serialized) struct DecompressionBombTrialTests {
    func runRow(body: Data, _ extra: [String]) throws -> (status: Int32, row: [String: String]) {
        try runServedBody(body, name: "bomb.jpg", contentType: "image/jpeg", ["--strategy", "data"] + extra)
    }

    @Test func theBombIsADecodeErrorRowNamingItsSizeAndTheOption() throws {
        let (status, row) = try runRow(body: DecompressionBomb.jpeg(), ["--render", "full"])
        #expect(status == 3)
        #expect(row["status"] == "decode_error", "\(row)")
        let error = row["error"] ?? ""
        #expect(
            error.contains("60000x60000") && error.contains("--max-image-pixels") && error.contains("178956970"),
            "\(error)"
        )
        // Refused from the header: the child never came near the 14.4 GB bitmap.
        #expect((Int(row["peak_rss_delta_bytes"] ?? "") ?? 0) < 100_000_000, "\(row)")
    }

    @Test func aHugeImagesThumbnailWithinBudgetIsStillMeasured() throws {
        // 20000x20000 (1.6 GB at full size) thumbnails at 1/8 into 2500x2500 (25 MB).
        let (status, row) = try runRow(
            body: DecompressionBomb.jpeg(width: 20000, height: 20000),
            ["--render", "thumbnail", "--max-pixel", "256"]
        )
        #expect(status == 0, "\(row)")
        #expect(row["status"] == "ok", "\(row)")
    }

    @Test func theBudgetIsAnOption() throws {
        let (_, row) = try runRow(
            body: DecompressionBomb.jpeg(width: 2000, height: 1000),
            ["--render", "full", "--max-image-pixels", "1000000"]
        )
        #expect(row["status"] == "decode_error", "\(row)")
        #expect(row["error"]?.contains("2000x1000") == true, "\(row)")
        let (_, allowed) = try runRow(
            body: DecompressionBomb.jpeg(width: 2000, height: 1000),
            ["--render", "full", "--max-image-pixels", "2000000"]
        )
        #expect(allowed["status"] == "ok", "\(allowed)")
    }
}
