import Foundation
import Imaging
import TestSupport
import Testing

/// Sizes read from a file are an attacker's numbers: headers written byte by byte that claim
/// zero or absurd sizes are refused with an error naming the size, never a trap.
@Suite struct HostileSizeTests {
    static let largest32 = 0xFFFF_FFFF
    static let largestSide = Int(Int32.max)

    @Test func pngClaimingFourBillionSquaredIsRefusedNamingTheSize() {
        let png = HostileHeaders.png(width: Self.largest32, height: Self.largest32)
        #expect(png.count == 41)
        expectDecodeFailed(png, naming: ["PNG", "4294967295x4294967295"])
    }

    @Test func pngWithAZeroSideIsRefused() {
        expectDecodeFailed(HostileHeaders.png(width: 0, height: 100), naming: ["PNG", "0x100"])
    }

    @Test func heicWhoseIspeClaimsFourBillionSquaredIsRefusedNamingTheSize() {
        let heic = HostileHeaders.heic(width: Self.largest32, height: Self.largest32)
        #expect(heic.count == 72)
        #expect(ImageInspector.sniff(heic) == .heic)
        expectDecodeFailed(heic, naming: ["HEIC", "4294967295x4294967295", "ispe"])
    }

    @Test func heicWithAZeroSideIsRefusedNamingIt() {
        expectDecodeFailed(HostileHeaders.heic(width: 0, height: 5), naming: ["HEIC", "0x5", "ispe"])
    }

    @Test func webpWhoseVP8HeaderSaysWidthZeroIsRefused() {
        let webp = HostileHeaders.webpVP8(width: 0, height: 100)
        #expect(ImageInspector.sniff(webp) == .webp)
        expectDecodeFailed(webp, naming: ["WebP", "0x100"])
    }

    @Test func jpegWhoseFrameHeaderSaysHeightZeroIsRefused() {
        expectDecodeFailed(HostileHeaders.jpeg(width: 100, height: 0), naming: ["JPEG", "100x0"])
    }

    /// Sides that pass the header check (each at most 2^31-1) whose products of 4 or 7 bytes a
    /// pixel pass Int.max: the budget refuses them, its arithmetic saturating instead of trapping.
    @Test func largestValidSidesAreOverBudgetNotAnOverflow() throws {
        for bytes in [
            HostileHeaders.png(width: Self.largestSide, height: Self.largestSide),
            HostileHeaders.heic(width: Self.largestSide, height: Self.largestSide),
        ] {
            let info = try ImageInspector.inspect(bytes)
            #expect((info.width, info.height) == (Self.largestSide, Self.largestSide))
            #expect(info.pixelCount == Self.largestSide * Self.largestSide)
            for decode in [
                { _ = try ImageDecoder.decodeFull(.memory(bytes), maxImagePixels: DecodeBudget.validRange.upperBound) },
                {
                    _ = try ImageDecoder.decodeThumbnail(
                        .memory(bytes),
                        maxPixel: 1024,
                        maxImagePixels: DecodeBudget.validRange.upperBound
                    )
                },
            ] {
                #expect { try decode() } throws: { error in
                    (error as? ImagingError)?.kind == "overBudget"
                        && "\(error)".contains("\(Self.largestSide)x\(Self.largestSide)")
                }
            }
        }
    }

    /// ImageInfo is public: a caller may build one with any size; its pixel count saturates.
    @Test func pixelCountSaturates() {
        let info = ImageInfo(format: .png, width: Self.largest32, height: Self.largest32)
        #expect(info.pixelCount == Int.max)
    }

    private func expectDecodeFailed(
        _ bytes: Data,
        naming parts: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for attempt in [
            { _ = try ImageInspector.inspect(bytes) },
            { _ = try ImageDecoder.decodeFull(.memory(bytes)) },
            { _ = try ImageDecoder.decodeThumbnail(.memory(bytes), maxPixel: 256) },
        ] {
            #expect(sourceLocation: sourceLocation) { try attempt() } throws: { error in
                guard case .decodeFailed(let message) = error as? ImagingError else { return false }
                return parts.allSatisfy { message.contains($0) }
            }
        }
    }
}
