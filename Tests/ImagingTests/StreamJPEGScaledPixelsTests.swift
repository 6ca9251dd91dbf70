import Foundation
import Imaging
import TestSupport
import Testing

/// The stream decoder's pixels at a DCT scale M/8, before its resampler, against libjpeg-turbo's
/// decode at the same scale, for every sampling and every M. Chroma is compared as libjpeg-turbo
/// upsamples it without interpolation (djpeg -nosmooth): both scale a subsampled component up by
/// its IDCT where libjpeg-turbo can, then repeat samples.
@Suite struct StreamJPEGScaledPixelsTests {
    struct Difference {
        var worst: Int
        var share: [Int]  // share[n]: the fraction of samples that differ by n or less, in millionths

        init(_ ours: [UInt8], _ libjpeg: [UInt8]) {
            let differences = zip(ours, libjpeg).map { abs(Int($0) - Int($1)) }
            worst = differences.max() ?? 0
            share = (0...worst).map { n in differences.count { $0 <= n } * 1_000_000 / max(1, differences.count) }
        }
    }

    /// The decoded samples (Y, Cb, Cr or gray, upsampled, before the colour conversion): within 2
    /// of libjpeg-turbo's, all of them.
    @Test(arguments: StreamJPEGTests.Sampling.allCases)
    func samplesWithinTwoOfLibjpegs(_ sampling: StreamJPEGTests.Sampling) throws {
        let file = try StreamJPEGTests.baseline(sampling)
        for numerator in 1...8 {
            let libjpeg = try JPEGScans.libjpegScaled(file, numerator: numerator, fancy: false, rgb: false)
            let ours = try StreamJPEGDecoder.scaledPixels(.memory(file), numerator: numerator, rgb: false)
            #expect(
                ours.count == libjpeg.samples.count
                    && ours.count == libjpeg.width * libjpeg.height
                        * (sampling == .gray ? 1 : 3),
                "\(sampling.rawValue) at \(numerator)/8"
            )
            let difference = Difference(ours, libjpeg.samples)
            #expect(difference.worst <= 2, "\(sampling.rawValue) at \(numerator)/8: \(difference.share)")
        }
    }

    /// In RGB the colour conversion (libjpeg's own fixed point) scales a chroma sample's IDCT
    /// rounding by up to 1.772: within 2 on all but a few samples in ten thousand, 3 at most.
    @Test(arguments: StreamJPEGTests.Sampling.allCases)
    func rgbWithinTwoOfLibjpegsButForRoundingOfChroma(_ sampling: StreamJPEGTests.Sampling) throws {
        let file = try StreamJPEGTests.baseline(sampling)
        for numerator in 1...8 {
            let libjpeg = try JPEGScans.libjpegScaled(file, numerator: numerator, fancy: false)
            let ours = try StreamJPEGDecoder.scaledPixels(.memory(file), numerator: numerator)
            #expect(ours.count == libjpeg.samples.count && ours.count == libjpeg.width * libjpeg.height * 3)
            let difference = Difference(ours, libjpeg.samples)
            #expect(difference.worst <= 3, "\(sampling.rawValue) at \(numerator)/8: \(difference.share)")
            #expect(
                difference.share[min(2, difference.worst)] >= 999_500,
                "\(sampling.rawValue) at \(numerator)/8: \(difference.share)"
            )
        }
    }
}
