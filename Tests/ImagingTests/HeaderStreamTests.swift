import Foundation
import Imaging
import Testing

/// The header reader over a forward-only stream (a request body, to budget it before holding it):
/// what lies before the header is read and discarded a window at a time, and reading stops at the
/// header.
@Suite struct HeaderStreamTests {
    /// The frame header past 8 MB of APP1 from a stream: reads of a few KiB at most, and none past
    /// the window after the frame header (the entropy data is never asked for).
    @Test func aStreamIsReadInSmallPiecesAndOnlyUpToTheFrameHeader() throws {
        let (_, padded) = try MetadataSkippingTests.paddedJPEG()
        let stream = MetadataSkippingTests.CountingStream(padded)
        let info = try ImageInspector.inspect(stream: stream.pull)
        #expect((info.format, info.width, info.height) == (.jpeg, 640, 480))
        #expect(stream.largestRequest <= HeaderReader.windowBytes, "\(stream.largestRequest)")
        let end = try MetadataSkippingTests.frameHeaderEnd(padded)
        #expect(end > MetadataSkippingTests.eightMB)
        #expect(stream.handedOut >= end && stream.handedOut <= end + HeaderReader.windowBytes, "\(stream.handedOut)")
    }

    /// Hostile lengths and fill from a stream: the same errors as from a buffer, and the walk ends
    /// with the stream.
    @Test func hostileSegmentsAreRefusedByNameFromAStream() throws {
        for (bytes, message) in MetadataSkippingTests.hostileCases {
            let stream = MetadataSkippingTests.CountingStream(Data(bytes))
            let error = #expect(throws: ImagingError.self) { try ImageInspector.inspect(stream: stream.pull) }
            #expect(error.map { "\($0)" }?.contains(message) == true, "\(String(describing: error))")
        }
    }
}
