import BenchCore
import Foundation

/// A path as the file system spells it: bytes, any but NUL, not necessarily UTF-8 (a Swift String,
/// and so a file URL's path, cannot hold every name a folder may contain).
package struct RawPath: Sendable, Hashable {
    package var bytes: [UInt8]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }
    package init(_ text: String) { bytes = Array(text.utf8) }

    package func appending(_ name: [UInt8]) -> RawPath {
        RawPath(bytes.last == UInt8(ascii: "/") ? bytes + name : bytes + [UInt8(ascii: "/")] + name)
    }

    /// The path for messages, tables and CSVs: every byte kept, escaped where it is not printable text.
    package var escaped: String { Self.escaped(bytes) }

    /// As `EscapedText`: control and format characters and bytes that are not UTF-8 as \xNN.
    package static func escaped(_ bytes: [UInt8]) -> String { EscapedText.escaped(bytes) }

    /// Calls `body` with the path as a C string.
    package func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// The file opened for reading (the caller closes it), or the reason it cannot be.
    package func openForReading() -> Result<FileHandle, ReadProblem> {
        let descriptor = withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return .failure(ReadProblem(path: self, errno: errno)) }
        return .success(FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    /// The whole file.
    package func contents() throws -> Data {
        let handle = try openForReading().get()
        defer { try? handle.close() }
        return try handle.readToEnd() ?? Data()
    }

    package struct ReadProblem: Error, CustomStringConvertible {
        package var path: RawPath
        package var errno: Int32
        package var description: String { "cannot read \(path.escaped): \(String(cString: strerror(errno)))" }
    }
}
