import Foundation

/// The `bench` binary that SwiftPM built next to the test bundle, for tests that run it as a real process.
public func benchExecutable() -> String { builtExecutable(named: "bench") }

/// An executable of this package (`bench`, `bench-reference`) that SwiftPM built next to the test bundle.
public func builtExecutable(named name: String) -> String {
    let testBinary =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var folder = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = folder.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        folder.deleteLastPathComponent()
    }
    fatalError("\(name) binary not found near \(testBinary); build it with `swift build`")
}

/// This package's root folder (the one with Package.swift), wherever a test's file sits below Tests/.
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// A cache of generated fixtures that tests share across runs, under the package's `.build/` (never in
/// the temporary directory, which each test leaves as it found it).
public func testFixtureCache(_ name: String) -> URL {
    packageRoot.appendingPathComponent(".build/test-fixture-cache", isDirectory: true)
        .appendingPathComponent(name, isDirectory: true)
}
