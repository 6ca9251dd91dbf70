import Foundation
import TestSupport
import Testing

/// `bench` does not load libheif when it starts: libheif brings libde265, x265, dav1d and aom,
/// and every measured child, a fresh `bench`, paid their loading and static constructors though
/// only a HEIC or AVIF decode uses them (CHEIFCodec loads libheif then). The libraries a process
/// loads at start are the executable's NEEDED entries (read with binutils' readelf).
struct ChildStartupLibrariesTests {
    @Test func libheifIsNotLoadedAtStart() throws {
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["--dynamic", "--wide", BenchProcess.executable]
        let output = Pipe()
        readelf.standardOutput = output
        try readelf.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        let needed = text.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        // The read itself works: bench needs libc and the Swift runtime.
        #expect(needed.contains { $0.contains("[libc.so.6]") }, "\(text)")
        #expect(needed.contains { $0.contains("[libswiftCore.so]") }, "\(text)")
        #expect(!needed.contains { $0.contains("libheif") }, "\(needed)")
    }
}
