import Foundation
import Imaging
import TestSupport
import Testing

/// Files made by libjpeg-turbo's own jpegtran with the scan structures the web serves: its default
/// progressive script, mozjpeg's default script (scripts/jpeg-scans/mozjpeg.txt), a restart marker
/// every MCU, successive approximation down to bit 0. Each has libjpeg-turbo's coefficients in the
/// stream decoder and renders exactly as its baseline transcode (jpegtran without options).
@Suite struct StreamJPEGTranscodeTests {
    static let scans = packageRoot.appendingPathComponent("scripts/jpeg-scans")

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var scans: Int  // how many the file has: the script was applied
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "libjpeg's progressive script", arguments: ["-progressive"], scans: 10),
        Case(
            name: "mozjpeg's default script",
            arguments: ["-scans", scans.appendingPathComponent("mozjpeg.txt").path],
            scans: 9
        ),
        Case(
            name: "progressive, a restart marker every MCU",
            arguments: ["-progressive", "-restart", "1B"],
            scans: 10
        ),
        Case(
            name: "mozjpeg's script, a restart marker every MCU",
            arguments: ["-scans", scans.appendingPathComponent("mozjpeg.txt").path, "-restart", "1B"],
            scans: 9
        ),
        Case(
            name: "refinement down to bit 0",
            arguments: ["-scans", scans.appendingPathComponent("refinement-to-bit-0.txt").path],
            scans: 21
        ),
        Case(name: "baseline, a restart marker every MCU", arguments: ["-restart", "1B"], scans: 1),
    ]

    /// jpegtran `arguments` over `jpeg`: the file it writes.
    static func jpegtran(_ arguments: [String], _ jpeg: Data) throws -> Data {
        try withTemporaryDirectory { folder in
            let input = folder.appendingPathComponent("in.jpg")
            let output = folder.appendingPathComponent("out.jpg")
            try jpeg.write(to: input)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/jpegtran")
            process.arguments = arguments + ["-outfile", output.path, input.path]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "jpegtran \(arguments)")
            return try Data(contentsOf: output)
        }
    }

    @Test(arguments: cases, [StreamJPEGTests.Sampling.s420, .s444])
    func libjpegsCoefficientsAndTheBaselineTranscodesPixels(
        _ testCase: Case,
        _ sampling: StreamJPEGTests.Sampling
    ) throws {
        let file = try Self.jpegtran(testCase.arguments, try StreamJPEGTests.baseline(sampling))
        #expect(try StreamJPEGDecoder.scanCount(.memory(file)) == testCase.scans)
        if testCase.arguments.contains("-restart") {
            #expect(file.firstRange(of: Data([0xFF, 0xD7])) != nil, "eight restart markers at least")
        }
        let ours = try StreamJPEGDecoder.coefficients(.memory(file))
        #expect(ours.count == 3)
        for component in ours.indices {
            let libjpeg = try JPEGScans.libjpegCoefficients(file, component: component)
            let first = zip(ours[component], libjpeg).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(
                ours[component].count == libjpeg.count && first == nil,
                "component \(component): block \((first ?? 0) / 64) differs"
            )
        }
        let baseline = try Self.jpegtran([], file)
        #expect(try StreamJPEGDecoder.scanCount(.memory(baseline)) == 1)
        for maxPixel in [613, 200] {
            let rendered = try StreamJPEGDecoder.decodeThumbnail(.memory(file), maxPixel: maxPixel)
            let fromBaseline = try StreamJPEGDecoder.decodeThumbnail(.memory(baseline), maxPixel: maxPixel)
            #expect(rendered.hasSamePixels(as: fromBaseline), "at \(maxPixel)")
        }
    }
}
