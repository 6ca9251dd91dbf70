import Foundation
import Imaging
import TestSupport
import Testing

/// The stream decoder against libjpeg-turbo: the same coefficients on every scan structure,
/// the same pixels for a file and its lossless transcodes, and a clear error on hostile input.
@Suite struct StreamJPEGTests {
    /// An odd-sized photo-like image (edge blocks and MCU padding in both directions), as RGBA.
    static let source: DecodedImage = {
        let spec = FixtureSpec(width: 613, height: 411)
        return try! JPEGDecoder.decodeFull(.memory(try! FixtureGenerator.makeJPEG(spec)))
    }()

    enum Sampling: String, CaseIterable, Sendable {
        case s420 = "4:2:0"
        case s422 = "4:2:2"
        case s440 = "4:4:0"
        case s444 = "4:4:4"
        case gray
    }

    static func baseline(_ sampling: Sampling) throws -> Data {
        let luma: (h: Int, v: Int) =
            switch sampling {
            case .s420: (2, 2)
            case .s422: (2, 1)
            case .s440: (1, 2)
            case .s444, .gray: (1, 1)
            }
        return try JPEGScans.encode(
            rgba: source.pixels,
            width: source.width,
            height: source.height,
            gray: sampling == .gray,
            luma: luma
        )
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var sampling: Sampling
        var structure: JPEGScans.Structure
        var restart = 0
        var name: String
        var testDescription: String { "\(name) \(sampling.rawValue)" + (restart > 0 ? " restart \(restart)" : "") }

        func file() throws -> Data {
            let baseline = try StreamJPEGTests.baseline(sampling)
            if case .baseline = structure, restart == 0 { return baseline }
            return try JPEGScans.transcode(baseline, to: structure, restartInterval: restart)
        }
    }

    static let cases: [Case] =
        Sampling.allCases.map { Case(sampling: $0, structure: .baseline, name: "baseline") }
        + Sampling.allCases.map { Case(sampling: $0, structure: .libjpegProgressive, name: "progressive") }
        + [
            Case(sampling: .s420, structure: .baseline, restart: 1, name: "baseline"),
            Case(sampling: .s420, structure: .libjpegProgressive, restart: 1, name: "progressive"),
            Case(sampling: .s444, structure: .libjpegProgressive, restart: 7, name: "progressive"),
            Case(sampling: .s420, structure: .script(JPEGScans.mozjpegScript), name: "mozjpeg script"),
            Case(sampling: .s444, structure: .script(JPEGScans.mozjpegScript), restart: 1, name: "mozjpeg script"),
            Case(sampling: .s422, structure: .script(JPEGScans.deepRefinementScript), name: "refinement to bit 0"),
            Case(
                sampling: .s420,
                structure: .script(JPEGScans.deepRefinementScript),
                restart: 3,
                name: "refinement to bit 0"
            ),
            Case(
                sampling: .s420,
                structure: .script(JPEGScans.sequentialPerComponent),
                name: "sequential, scan a component"
            ),
            Case(
                sampling: .s440,
                structure: .script(JPEGScans.sequentialPerComponent),
                restart: 2,
                name: "sequential, scan a component"
            ),
        ]

    /// Every block of every component holds what libjpeg's jpeg_read_coefficients reads.
    @Test(arguments: cases)
    func coefficientsEqualLibjpegs(_ testCase: Case) throws {
        let file = try testCase.file()
        let ours = try StreamJPEGDecoder.coefficients(.memory(file))
        #expect(ours.count == (testCase.sampling == .gray ? 1 : 3))
        for component in ours.indices {
            let libjpeg = try JPEGScans.libjpegCoefficients(file, component: component)
            #expect(ours[component].count == libjpeg.count, "component \(component)")
            let firstDifference = zip(ours[component], libjpeg).enumerated().first { $0.element.0 != $0.element.1 }
            let block = (firstDifference?.offset ?? 0) / 64
            #expect(firstDifference == nil, "component \(component): block \(block) differs")
        }
    }

    /// A progressive or multi-scan file renders exactly as its baseline transcode (same coefficients).
    @Test(arguments: cases.filter { if case .baseline = $0.structure { false } else { true } })
    func rendersAsItsBaselineTranscode(_ testCase: Case) throws {
        let baselineFile = try Self.baseline(testCase.sampling)
        let baseline = try StreamJPEGDecoder.decodeThumbnail(.memory(baselineFile), maxPixel: 200)
        let other = try StreamJPEGDecoder.decodeThumbnail(.memory(try testCase.file()), maxPixel: 200)
        #expect((other.width, other.height) == (200, 134))
        #expect(other.hasSamePixels(as: baseline))
    }

    /// The file is read in chunks from disk and the body in place: both give the same pixels.
    @Test func fileAndMemoryRenderAlike() throws {
        let file = try JPEGScans.transcode(try Self.baseline(.s420), to: .script(JPEGScans.mozjpegScript))
        let fromMemory = try StreamJPEGDecoder.decodeThumbnail(.memory(file), maxPixel: 300)
        let fromFile = try withTemporaryFile(file) {
            try StreamJPEGDecoder.decodeThumbnail(.file(path: $0), maxPixel: 300)
        }
        #expect(fromMemory.hasSamePixels(as: fromFile))
    }

    /// The output: max_pixel on the long side, aspect kept, never upscaled, from the smallest M/8
    /// IDCT at least that size, area-averaged. Against libjpeg-turbo's decode at the same M/8 put
    /// through the same area average it is close (IDCT and upsampling differ a little); against
    /// the full decode averaged it is as close as libjpeg's own scaled decode is (a grainy
    /// fixture's noise above M/8 is what both drop).
    @Test(arguments: [(200, 200, 134, 3), (77, 77, 52, 1), (613, 613, 411, 8), (5000, 613, 411, 8)])
    func rendersCloseToLibjpegsScaledDecode(maxPixel: Int, width: Int, height: Int, numerator: Int) throws {
        for sampling in Sampling.allCases {
            let file = try Self.baseline(sampling)
            #expect(try StreamJPEGDecoder.thumbnailScale(.memory(file), maxPixel: maxPixel) == numerator)
            let ours = try StreamJPEGDecoder.decodeThumbnail(.memory(file), maxPixel: maxPixel)
            #expect((ours.width, ours.height) == (width, height))
            let scaled = try JPEGDecoder.decodeThumbnail(.memory(file), maxPixel: maxPixel)
            let libjpegScaled = areaAveraged(scaled, width: width, height: height)
            let full = areaAveraged(try JPEGDecoder.decodeFull(.memory(file)), width: width, height: height)
            let againstScaled = peakSignalToNoise(ours, libjpegScaled)
            #expect(againstScaled >= 35, "\(sampling.rawValue) at \(maxPixel): \(againstScaled) dB")
            let ownAgainstFull = peakSignalToNoise(ours, full)
            let libjpegAgainstFull = psnr(libjpegScaled, full)
            // At 8/8 libjpeg's scaled decode is its full one: ours then only has to be near it.
            #expect(
                ownAgainstFull >= min(libjpegAgainstFull - 1, 45),
                "\(sampling.rawValue) at \(maxPixel): \(ownAgainstFull) dB, libjpeg's \(libjpegAgainstFull) dB"
            )
            #expect(ownAgainstFull >= 30, "\(sampling.rawValue) at \(maxPixel): \(ownAgainstFull) dB")
        }
    }

    /// On real photographs (Debian's mate-backgrounds, which scripts/setup.sh installs: baseline 4:2:2,
    /// progressive 4:2:0, 4:4:4 and 4:2:2 up to 5640x3172), the render at 1024 pixels is within 35 dB
    /// PSNR of the full decode area-averaged to the same size.
    @Test(arguments: [
        "nature/Wood.jpg", "nature/FreshFlower.jpg", "abstract/Elephants.jpg",
        "abstract/Elephants_5640x3172.jpg",
    ])
    func rendersAPhotographCloseToItsFullDecode(_ photograph: String) throws {
        let path = "/usr/share/backgrounds/mate/" + photograph
        try #require(
            FileManager.default.fileExists(atPath: path),
            "\(path) is missing: scripts/setup.sh installs mate-backgrounds (make test runs it)"
        )
        let ours = try StreamJPEGDecoder.decodeThumbnail(.file(path: path), maxPixel: 1024)
        #expect(max(ours.width, ours.height) == 1024)
        let full = areaAveraged(try JPEGDecoder.decodeFull(.file(path: path)), width: ours.width, height: ours.height)
        let decibels = peakSignalToNoise(ours, full)
        #expect(decibels >= 35 && decibels < 80, "\(photograph): \(decibels) dB")
    }

    /// CMYK (Adobe's inverted) and YCCK come out as the libjpeg-turbo path converts them.
    @Test(arguments: [TestImages.JPEGColorSpace.cmyk, .ycck])
    func fourComponentFilesConvertAsTheFullDecoder(_ space: TestImages.JPEGColorSpace) throws {
        let file = try TestImages.jpeg(width: 64, height: 48, space: space, color: [40, 120, 200, 230])
        let ours = try StreamJPEGDecoder.decodeThumbnail(.memory(file), maxPixel: 64)
        let full = try JPEGDecoder.decodeFull(.memory(file))
        let a = ours.pixels.assumingMemoryBound(to: UInt8.self)
        let b = full.pixels.assumingMemoryBound(to: UInt8.self)
        let center = (24 * 64 + 32) * 4
        let difference = (0..<4).map { abs(Int(a[center + $0]) - Int(b[center + $0])) }.max() ?? 0
        let ourPixel = (0..<4).map { a[center + $0] }
        let fullPixel = (0..<4).map { b[center + $0] }
        #expect(difference <= 2, "\(space): \(ourPixel) against \(fullPixel)")
    }

    // MARK: Hostile input: a decode error that names the problem, never a crash

    @Test func aFileThatEndsEarlyIsRefused() throws {
        let file = try JPEGScans.transcode(try Self.baseline(.s420), to: .libjpegProgressive)
        for length in [file.count / 3, file.count - 2] {
            #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(file.prefix(length)), maxPixel: 100) } throws: {
                "\($0)".contains("ends") && ($0 as? ImagingError)?.kind == "decodeFailed"
            }
        }
    }

    @Test func aMarkerInsideEntropyDataIsRefused() throws {
        var file = try Self.baseline(.s444)
        let scanStart = try #require(file.firstRange(of: Data([0xFF, 0xDA]))).upperBound
        let middle = scanStart + (file.count - scanStart) / 2
        file.replaceSubrange(middle..<middle + 2, with: [0xFF, 0xD9])  // EOI halfway through the scan
        #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(file), maxPixel: 100) } throws: {
            "\($0)".contains("ends early, at marker 0xFFD9")
        }
    }

    @Test func garbageEntropyDataIsRefused() throws {
        var file = try JPEGScans.transcode(try Self.baseline(.s420), to: .libjpegProgressive)
        let scanStart = try #require(file.firstRange(of: Data([0xFF, 0xDA]))).upperBound + 12
        for index in scanStart..<scanStart + 4000 { file[index] = UInt8(truncatingIfNeeded: index &* 151) | 0x81 }
        #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(file), maxPixel: 100) } throws: {
            ($0 as? ImagingError)?.kind == "decodeFailed"
        }
    }

    /// One scan repeated past the cap: refused by the first pass, before any cursor exists.
    @Test func tooManyScansAreRefused() throws {
        let file = try Self.baseline(.gray)
        let scan = try #require(file.firstRange(of: Data([0xFF, 0xDA])))
        let body = file[scan.lowerBound..<(file.count - 2)]
        for count in [StreamJPEGDecoder.maxScans, StreamJPEGDecoder.maxScans + 1] {
            var many = file[..<scan.lowerBound]
            for _ in 0..<count { many.append(contentsOf: body) }
            many.append(contentsOf: [0xFF, 0xD9])
            if count == StreamJPEGDecoder.maxScans {
                #expect(try StreamJPEGDecoder.scanCount(.memory(Data(many))) == count)
            } else {
                #expect { try StreamJPEGDecoder.scanCount(.memory(Data(many))) } throws: {
                    "\($0)".contains("more than \(StreamJPEGDecoder.maxScans) scans")
                }
            }
        }
    }

    @Test func unsupportedCodingsAreNamed() throws {
        let arithmetic = try TestImages.jpeg(
            width: 64,
            height: 48,
            space: .rgb,
            color: [10, 200, 30],
            arithmetic: true
        )
        #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(arithmetic), maxPixel: 16) } throws: {
            "\($0)".contains("arithmetic coding")
        }
        var twelveBit = try Self.baseline(.gray)
        let frame = try #require(twelveBit.firstRange(of: Data([0xFF, 0xC0]))).upperBound
        twelveBit[frame + 2] = 12  // the frame's sample precision
        #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(twelveBit), maxPixel: 16) } throws: {
            "\($0)".contains("12-bit samples")
        }
        var missingTable = try Self.baseline(.gray)
        let scan = try #require(missingTable.firstRange(of: Data([0xFF, 0xDA]))).upperBound
        missingTable[scan + 4] = 0x33  // the component's DC and AC table selectors: never defined
        #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(missingTable), maxPixel: 16) } throws: {
            "\($0)".contains("which no DHT defined")
        }
        #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(Data("GIF89a".utf8)), maxPixel: 16) } throws: {
            ($0 as? ImagingError)?.kind == "notAJPEG"
        }
    }

    // MARK: Helpers

    /// RGB of `image` averaged over exact areas into width x height (what the decoder's resampler
    /// computes from its own samples), as doubles.
    func areaAveraged(_ image: DecodedImage, width: Int, height: Int) -> [Double] {
        let bytes = image.pixels.assumingMemoryBound(to: UInt8.self)
        var out = [Double](repeating: 0, count: width * height * 3)
        let sx = Double(image.width) / Double(width)
        let sy = Double(image.height) / Double(height)
        for oy in 0..<height {
            let y0 = Double(oy) * sy
            let y1 = y0 + sy
            for ox in 0..<width {
                let x0 = Double(ox) * sx
                let x1 = x0 + sx
                var sum = [0.0, 0.0, 0.0]
                for y in Int(y0)..<min(image.height, Int(y1.rounded(.up))) {
                    let wy = min(Double(y + 1), y1) - max(Double(y), y0)
                    for x in Int(x0)..<min(image.width, Int(x1.rounded(.up))) {
                        let w = wy * (min(Double(x + 1), x1) - max(Double(x), x0))
                        for c in 0..<3 { sum[c] += w * Double(bytes[(y * image.width + x) * 4 + c]) }
                    }
                }
                for c in 0..<3 { out[(oy * width + ox) * 3 + c] = sum[c] / (sx * sy) }
            }
        }
        return out
    }

    func peakSignalToNoise(_ image: DecodedImage, _ reference: [Double]) -> Double {
        let bytes = image.pixels.assumingMemoryBound(to: UInt8.self)
        let rgb = (0..<image.width * image.height * 3).map { Double(bytes[$0 / 3 * 4 + $0 % 3]) }
        return psnr(rgb, reference)
    }

    func psnr(_ first: [Double], _ second: [Double]) -> Double {
        let squared = zip(first, second).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
        let mse = squared / Double(first.count)
        return 10 * log10(255 * 255 / max(mse, 1e-12))
    }
}
