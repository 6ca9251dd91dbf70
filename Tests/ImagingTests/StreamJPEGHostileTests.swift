import Foundation
import Imaging
import TestSupport
import Testing

/// The stream decoder on unusual and hostile structure: what it refuses, naming why, before it
/// costs more than its budgets, and what libjpeg-turbo decodes that it decodes to the same coefficients.
@Suite struct StreamJPEGHostileTests {
    typealias Sampling = StreamJPEGTests.Sampling

    /// The marker segments before the first scan's data, SOS included: each one's code and bytes.
    static func segments(_ file: Data) -> [(marker: UInt8, range: Range<Int>)] {
        var found: [(marker: UInt8, range: Range<Int>)] = []
        var at = 2
        while at + 3 < file.count, file[at] == 0xFF {
            let marker = file[at + 1]
            let end = at + 2 + (Int(file[at + 2]) << 8 | Int(file[at + 3]))
            found.append((marker, at..<end))
            if marker == 0xDA { break }
            at = end
        }
        return found
    }

    static func segment(_ marker: UInt8, of file: Data) throws -> Range<Int> {
        try #require(segments(file).first { $0.marker == marker }?.range)
    }

    /// Every component's coefficients equal libjpeg-turbo's (jpeg_read_coefficients).
    static func expectLibjpegsCoefficients(_ file: Data) throws {
        let ours = try StreamJPEGDecoder.coefficients(.memory(file))
        #expect(ours.count >= 1)
        for component in ours.indices {
            let libjpeg = try JPEGScans.libjpegCoefficients(file, component: component)
            #expect(ours[component].count == libjpeg.count, "component \(component)")
            let equal = ours[component] == libjpeg
            #expect(equal, "component \(component): the coefficients differ")
        }
    }

    // MARK: Tables

    /// A DC table's symbols are at most 15 whatever else shares its bytes: here the chroma DC table
    /// is defined with the bytes of the luma AC table (symbols up to 0xFA), which a scan builds
    /// first. libjpeg-turbo refuses such a file ("Bogus Huffman table definition"); so does the
    /// stream decoder, naming the table.
    @Test func aDCTableHoldingACSymbolsIsRefused() throws {
        let file = try StreamJPEGTests.baseline(.s444)
        let tables = Self.segments(file).filter { $0.marker == 0xC4 }.map(\.range)
        let lumaAC = try #require(tables.first { file[$0.lowerBound + 4] == 0x10 })
        let chromaDC = try #require(tables.first { file[$0.lowerBound + 4] == 0x01 })
        var acBytesAsDC = Data(file[lumaAC])
        acBytesAsDC[4] = 0x01  // class 0 (DC), slot 1
        var hostile = file
        hostile.replaceSubrange(chromaDC, with: acBytesAsDC)
        #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(hostile), maxPixel: 100) } throws: {
            "\($0)".contains("scan 1: DC Huffman table 1 is corrupt")
        }
        #expect { try JPEGDecoder.decodeFull(.memory(hostile)) } throws: { "\($0)".contains("Bogus Huffman table") }
    }

    /// A sequential file without DHT segments (a Motion-JPEG frame) decodes with the standard tables
    /// of JPEG's Annex K.3, as libjpeg-turbo decodes it: to the same coefficients.
    @Test(arguments: [Sampling.s420, .gray])
    func aSequentialFileWithoutHuffmanTablesUsesTheStandardOnes(_ sampling: Sampling) throws {
        var file = try StreamJPEGTests.baseline(sampling)  // libjpeg's default tables are the standard's
        while let table = Self.segments(file).first(where: { $0.marker == 0xC4 }) { file.removeSubrange(table.range) }
        #expect(file.firstRange(of: Data([0xFF, 0xC4])) == nil)
        try Self.expectLibjpegsCoefficients(file)
    }

    /// A progressive file gets no standard tables: libjpeg-turbo refuses it without DHT, and so does
    /// the stream decoder, naming the table.
    @Test func aProgressiveFileWithoutHuffmanTablesIsRefused() throws {
        var file = try JPEGScans.transcode(try StreamJPEGTests.baseline(.gray), to: .libjpegProgressive)
        let table = try Self.segment(0xC4, of: file)  // the first scan's DC table
        file.removeSubrange(table)
        #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(file), maxPixel: 100) } throws: {
            "\($0)".contains("scan 1 uses DC Huffman table 0, which no DHT defined")
        }
        #expect(throws: ImagingError.self) { try JPEGDecoder.decodeFull(.memory(file)) }
    }

    // MARK: Markers between segments

    /// RSTn and TEM markers between segments, outside entropy data, have no length and are skipped
    /// as libjpeg-turbo skips them: before the frame header, before a scan and between two scans.
    @Test func restartAndTEMMarkersBetweenSegmentsAreSkipped() throws {
        let baseline = try StreamJPEGTests.baseline(.s420)
        var stray = baseline
        stray.insert(contentsOf: [0xFF, 0xD7], at: try Self.segment(0xDA, of: stray).lowerBound)
        stray.insert(contentsOf: [0xFF, 0xD0, 0xFF, 0x01], at: try Self.segment(0xC0, of: stray).lowerBound)
        try Self.expectLibjpegsCoefficients(stray)

        var progressive = try JPEGScans.transcode(baseline, to: .libjpegProgressive)
        let firstScan = try Self.segment(0xDA, of: progressive).upperBound
        let secondScan = try #require(progressive[firstScan...].firstRange(of: Data([0xFF, 0xDA]))).lowerBound
        progressive.insert(contentsOf: [0xFF, 0x01], at: secondScan)
        try Self.expectLibjpegsCoefficients(progressive)
    }

    /// A DNL marker (the frame's height given after its first scan) is not supported: refused naming
    /// it, whether the frame header's height is 0 (which DNL then gives) or not.
    @Test func aDNLMarkerIsRefusedNamingIt() throws {
        let file = try StreamJPEGTests.baseline(.gray)
        let frame = try Self.segment(0xC0, of: file)
        let height = Array(file[frame.lowerBound + 5..<frame.lowerBound + 7])
        var withDNL = file
        withDNL.insert(contentsOf: [0xFF, 0xDC, 0x00, 0x04] + height, at: file.count - 2)  // before EOI
        var heightZero = withDNL
        heightZero.replaceSubrange(frame.lowerBound + 5..<frame.lowerBound + 7, with: [0, 0])
        for hostile in [withDNL, heightZero] {
            #expect { try StreamJPEGDecoder.decodeThumbnail(.memory(hostile), maxPixel: 100) } throws: {
                "\($0)".contains("a DNL marker (the frame's height given after its first scan) is not supported")
            }
        }
    }

    // MARK: The work budget

    /// A 4000x4000 gray frame with 999 AC scans of one byte each: every scan's blocks would be
    /// visited (EOB runs cost no data). The first pass counts blocks x scans and refuses the file
    /// at the scan that passes the budget, before any block is decoded, naming the budget and the
    /// option that raises it, for the stream renderer as for the decoder itself.
    @Test func manyScansOverALargeFrameAreRefusedByTheWorkBudget() throws {
        let dc = JPEGScans.Scan([0], 0, 0, 0, 0)
        let ac = JPEGScans.Scan([0], 1, 63, 0, 0)
        let file = JPEGScans.skeleton(
            width: 4000,
            height: 4000,
            components: 1,
            scans: [dc] + Array(repeating: ac, count: 999)
        )
        let blocks = 500 * 500
        let budget = try StreamJPEGDecoder.workBudget(maxImagePixels: DecodeBudget.defaultMaxImagePixels)
        let refusedAt = budget / blocks  // the render and the scans before it fit, this one does not
        #expect(refusedAt > 1 && refusedAt < 999)
        let decodes: [() throws -> DecodedImage] = [
            { try StreamJPEGDecoder.decodeThumbnail(.memory(file), maxPixel: 1024) },
            { try ImageDecoder.decodeStreaming(.memory(file), maxPixel: 1024) },
        ]
        for decode in decodes {
            #expect { _ = try decode() } throws: { error in
                guard case .overBudget(let message) = error as? ImagingError else { return false }
                return message.contains("work budget passed at scan \(refusedAt): a 4000x4000 frame")
                    && message.contains("raise it with --max-image-pixels")
            }
        }
    }

    /// The work budget follows the pixel budget: 16 scans over the blocks (64 pixels each) of an
    /// image at the pixel budget.
    @Test func theWorkBudgetFollowsThePixelBudget() throws {
        let pixels = DecodeBudget.defaultMaxImagePixels
        #expect(try StreamJPEGDecoder.workBudget(maxImagePixels: pixels) == pixels / 64 * 16)
        #expect(try StreamJPEGDecoder.workBudget(maxImagePixels: 4 * pixels) == 4 * pixels / 64 * 16)
        let file = JPEGScans.skeleton(
            width: 4000,
            height: 4000,
            components: 1,
            scans: [JPEGScans.Scan([0], 0, 0, 0, 0)] + Array(repeating: JPEGScans.Scan([0], 1, 63, 0, 0), count: 999)
        )
        // Under a budget large enough for its 1001 passes, the same file gets past the first pass
        // and fails where its data ends.
        let generous = 2_000_000_000
        #expect {
            try StreamJPEGDecoder.decodeThumbnail(.memory(file), maxPixel: 100, maxImagePixels: generous)
        } throws: {
            "\($0)".contains("ends early")
        }
    }

    /// A 6000x4000 4:4:4 photograph in libjpeg's progressive script is far inside the default
    /// budget: 17 blocks x scans for every 64 pixels (two DC scans over the 3 components, 4 luma and
    /// 2 chroma AC scans each, the render over all 3), a seventh of it.
    @Test func aLargeProgressivePhotographIsFarInsideTheBudget() throws {
        // The script as libjpeg writes it: the same work as a real transcode, on a small image.
        let small = try JPEGScans.transcode(try StreamJPEGTests.baseline(.s444), to: .libjpegProgressive)
        let smallSkeleton = JPEGScans.skeleton(width: 613, height: 411, components: 3, scans: JPEGScans.libjpegScript)
        #expect(try StreamJPEGDecoder.work(.memory(small)) == StreamJPEGDecoder.work(.memory(smallSkeleton)))

        let photograph = JPEGScans.skeleton(width: 6000, height: 4000, components: 3, scans: JPEGScans.libjpegScript)
        let work = try StreamJPEGDecoder.work(.memory(photograph))
        #expect(work == 750 * 500 * 17)
        let budget = try StreamJPEGDecoder.workBudget(maxImagePixels: DecodeBudget.defaultMaxImagePixels)
        #expect(work * 7 < budget && work * 8 > budget)
    }
}
