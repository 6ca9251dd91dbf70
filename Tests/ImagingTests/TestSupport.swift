import Foundation
import Glibc
import Imaging

/// Fixtures shared by the tests, each generated once per test process (static lets
/// are lazy and thread-safe; Swift Testing runs tests in parallel).
enum Fixtures {
    static let smallSpec = FixtureSpec(width: 1000, height: 800)
    static let small: Data = try! FixtureGenerator.makeJPEG(smallSpec)
    /// The article's 6000x4000 image: a few seconds in a debug build, so made once.
    static let article: Data = try! FixtureGenerator.makeJPEG(.article)
}

/// A fresh directory under the system temporary directory, removed by `body`'s end.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("ImagingTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// Writes `data` to a file in a fresh temporary directory and passes its path.
func withTemporaryFile<T>(_ data: Data, _ body: (String) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
        let url = directory.appendingPathComponent("image.jpg")
        try data.write(to: url)
        return try body(url.path)
    }
}

extension ImagingError {
    /// The case name, to assert on the kind of error without its libjpeg message.
    var kind: String {
        switch self {
        case .unsupportedImage: return "unsupportedImage"
        case .notAJPEG: return "notAJPEG"
        case .decodeFailed: return "decodeFailed"
        case .encodeFailed: return "encodeFailed"
        case .io: return "io"
        case .overBudget: return "overBudget"
        }
    }
}

extension DecodedImage {
    /// Full comparison, for tests: the checksum only samples.
    func hasSamePixels(as other: DecodedImage) -> Bool {
        width == other.width && height == other.height && memcmp(pixels, other.pixels, byteCount) == 0
    }
}
