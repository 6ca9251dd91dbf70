import Foundation
import TestSupport
import Testing

/// Where `bench` caches fixtures when --fixture-cache is not given: $XDG_CACHE_HOME, else
/// $HOME/.cache (not the password file's home, which FileManager follows on Linux: a CI user
/// whose home there is /nonexistent got an error), and a cache that cannot be made is named with
/// the option that chooses another.
@Suite struct FixtureCacheHomeTests {
    static let small = ["fixture", "--width", "64", "--height", "48"]

    @Test func theDefaultCacheFollowsHOMENotThePasswordFile() throws {
        let home = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        // An empty XDG_CACHE_HOME counts as unset (XDG base directory spec).
        let output = try BenchProcess.run(Self.small, extraEnvironment: ["HOME": home.path, "XDG_CACHE_HOME": ""])
        #expect(output.status == 0, "\(output.standardError)")
        let printed = output.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
        let expected = home.appendingPathComponent(".cache/image-memory-bench/fixtures").path + "/"
        #expect(printed.hasPrefix(expected), "cached at \(printed), not under \(expected)")
        #expect(FileManager.default.fileExists(atPath: printed))
    }

    @Test func XDGCacheHomeComesFirst() throws {
        let home = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let xdg = home.appendingPathComponent("xdg")
        let output = try BenchProcess.run(
            Self.small,
            extraEnvironment: ["HOME": home.path, "XDG_CACHE_HOME": xdg.path]
        )
        #expect(output.status == 0, "\(output.standardError)")
        #expect(
            output.standardOutput.hasPrefix(xdg.appendingPathComponent("image-memory-bench/fixtures").path + "/"),
            "\(output.standardOutput)"
        )
    }

    @Test func aCacheThatCannotBeMadeIsNamedWithTheOptionToChooseAnother() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a-file")
        try Data("not a folder".utf8).write(to: file)
        let cache = file.appendingPathComponent("fixtures").path
        let output = try BenchProcess.run(Self.small + ["--fixture-cache", cache])
        #expect(output.status != 0)
        #expect(output.standardError.contains(cache), "\(output.standardError)")
        #expect(output.standardError.contains("--fixture-cache"), "\(output.standardError)")
    }
}
