import Foundation
import Imaging
import Testing

@Suite struct EncoderTests {
    /// A horizontal red ramp over a constant green and blue.
    private func ramp(width: Int, height: Int, progressive: Bool) throws -> Data {
        try JPEGEncoder.encodeRGB(width: width, height: height, quality: 95, progressive: progressive) { _, row in
            for x in 0..<width {
                row[3 * x] = UInt8(x * 255 / max(1, width - 1))
                row[3 * x + 1] = 100
                row[3 * x + 2] = 200
            }
        }
    }

    @Test(arguments: [false, true])
    func encodedRowsDecodeBack(progressive: Bool) throws {
        let data = try ramp(width: 257, height: 33, progressive: progressive)  // not multiples of 8 or 16
        #expect(data.starts(with: [0xFF, 0xD8]))
        let image = try JPEGDecoder.decodeFull(.memory(data))
        #expect((image.width, image.height) == (257, 33))
        // Lossy, but close: check a pixel in the middle of a row.
        let pixel = image.pixels.assumingMemoryBound(to: UInt8.self) + (16 * 257 + 128) * 4
        #expect(abs(Int(pixel[0]) - 127) <= 6)
        #expect(abs(Int(pixel[1]) - 100) <= 6)
        #expect(abs(Int(pixel[2]) - 200) <= 6)
        #expect(pixel[3] == 255)
    }

    @Test func rowsAreRequestedOnceEachInOrder() throws {
        var seen: [Int] = []
        _ = try JPEGEncoder.encodeRGB(width: 8, height: 40, quality: 50, progressive: false) { y, _ in seen.append(y) }
        #expect(seen == Array(0..<40))
    }

    @Test func invalidParametersThrow() {
        for (width, height, quality) in [(0, 10, 90), (10, 0, 90), (10, 10, 0), (10, 10, 101), (70_000, 10, 90)] {
            let error = #expect(throws: ImagingError.self) {
                try JPEGEncoder.encodeRGB(width: width, height: height, quality: quality, progressive: false) { _, _ in
                }
            }
            #expect(error?.kind == "encodeFailed")
        }
    }
}
