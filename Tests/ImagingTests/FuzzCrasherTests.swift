import Foundation
import Imaging
import Testing

/// Inputs that `make fuzz` (scripts/fuzz.sh) found to crash a reader, minimized by libFuzzer and
/// kept here byte for byte: each must now be an error naming the problem.
@Suite struct FuzzCrasherTests {
    /// A frame header (SOF0) that lists no components: the subsampling read the first one.
    @Test func jpegFrameWithoutComponents() {
        let input = Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0xFF, 0x2F, 0xAE, 0x31, 0x3F, 0x00])
        #expect(throws: ImagingError.decodeFailed("JPEG: frame header lists no components")) {
            try ImageInspector.inspect(input)
        }
    }
}
