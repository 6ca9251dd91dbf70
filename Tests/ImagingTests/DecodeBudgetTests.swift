import Foundation
import Imaging
import TestSupport
import Testing

/// Decompression bombs are refused from the header, before anything is allocated; the
/// thumbnail path still works when what it really allocates fits the budget.
@Suite struct DecodeBudgetTests {
    static func gradient(width: Int, height: Int, progressive: Bool) throws -> Data {
        try JPEGEncoder.encodeRGB(width: width, height: height, quality: 85, progressive: progressive) { y, row in
            for x in 0..<width * 3 { row[x] = UInt8(truncatingIfNeeded: x &* 5 &+ y &* 3) }
        }
    }

    func overBudgetMessage(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as ImagingError {
            guard case .overBudget(let message) = error else { return "wrong error: \(error)" }
            return message
        } catch {
            return "wrong error: \(error)"
        }
    }

    @Test func theBombIsRefusedByDefaultNamingItsSizeAndTheOption() throws {
        let bomb = DecompressionBomb.jpeg()
        #expect(bomb.count < 130)
        #expect(try JPEGDecoder.imageSize(of: .memory(bomb)) == (60000, 60000))
        let message = try #require(overBudgetMessage { try JPEGDecoder.decodeFull(.memory(bomb)) })
        #expect(message.contains("60000x60000"), "\(message)")
        #expect(message.contains("14.4 GB"), "\(message)")
        #expect(message.contains("178956970"), "\(message)")
        #expect(message.contains("--max-image-pixels"), "\(message)")
        // The refusal happened before the 14.4 GB bitmap: this process is nowhere near it.
        #expect(residentBytes() < 2_000_000_000)
    }

    @Test func aHugeButCheapThumbnailIsStillDecoded() throws {
        // 20000x20000: 1.6 GB at full size (refused), 2500x2500 at 1/8 (25 MB, allowed).
        let bomb = DecompressionBomb.jpeg(width: 20000, height: 20000)
        #expect(overBudgetMessage { try JPEGDecoder.decodeFull(.memory(bomb)) } != nil)
        let thumbnail = try JPEGDecoder.decodeThumbnail(.memory(bomb), maxPixel: 256)
        #expect(thumbnail.width == 2500 && thumbnail.height == 2500)
    }

    @Test func progressiveThumbnailsAreBudgetedForTheirCoefficients() throws {
        // Budget 100,000 pixels = 400 KB. A 512x512 4:2:0 image has 393,216 coefficients
        // (786 KB) that a progressive decode keeps whatever the scale; a baseline one streams.
        let budget = 100_000
        let baseline = try Self.gradient(width: 512, height: 512, progressive: false)
        let progressive = try Self.gradient(width: 512, height: 512, progressive: true)

        let small = try JPEGDecoder.decodeThumbnail(.memory(baseline), maxPixel: 64, maxImagePixels: budget)
        #expect(small.width == 64)
        let estimate = try JPEGDecoder.allocationEstimate(of: .memory(progressive), numerator: 1)
        #expect(estimate.coefficientBytes == 512 * 512 * 3 / 2 * 2)
        #expect(try JPEGDecoder.allocationEstimate(of: .memory(baseline), numerator: 1).coefficientBytes == 0)

        let message = try #require(
            overBudgetMessage {
                try JPEGDecoder.decodeThumbnail(.memory(progressive), maxPixel: 64, maxImagePixels: budget)
            }
        )
        #expect(message.contains("coefficients"), "\(message)")
        #expect(message.contains("1/8 (64x64)"), "\(message)")
        for data in [baseline, progressive] {
            #expect(overBudgetMessage { try JPEGDecoder.decodeFull(.memory(data), maxImagePixels: budget) } != nil)
            #expect(try JPEGDecoder.decodeFull(.memory(data), maxImagePixels: 512 * 512 * 2).width == 512)
        }
    }

    @Test func theDefaultBudgetTakesTheArticlesPhoto() throws {
        let estimate = try JPEGDecoder.allocationEstimate(of: .memory(Fixtures.small))
        #expect(estimate.outputBytes == 1000 * 800 * 4)
        #expect(6000 * 4000 < DecodeBudget.defaultMaxImagePixels)
    }
}

/// This process's resident set size, from /proc/self/statm (Linux).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
