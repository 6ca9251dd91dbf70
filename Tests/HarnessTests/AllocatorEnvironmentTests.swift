import Foundation
import TestSupport
import Testing

/// Allocator settings in the environment reach every child and change its figures: recorded in
/// trials.json and named in a warning, never silent.
@Suite(.serialized) struct AllocatorEnvironmentTests {
    static func context(_ folder: URL) throws -> [String: Any] {
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("out/trials.json")))
            as? [String: Any]
        return try #require(json?["context"] as? [String: Any])
    }

    static func measure(environment: [String: String]) throws -> (BenchProcess.Output, [String: Any]) {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run(
            ["run", "--width", "320", "--height", "240", "--out", "out"] + [
                "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "1",
            ],
            workingDirectory: folder,
            extraEnvironment: environment
        )
        return (output, try context(folder))
    }

    /// A malloc tunable and MALLOC_ARENA_MAX in the environment are recorded in trials.json's context
    /// and named together in one warning line, on stderr before the first trial, as every measuring
    /// command says it.
    @Test func aMallocTunableIsRecordedAndWarnedAbout() throws {
        let tunable = "glibc.malloc.mmap_threshold=65536"
        let (output, context) = try Self.measure(environment: ["GLIBC_TUNABLES": tunable, "MALLOC_ARENA_MAX": "2"])
        #expect(output.status == 0, "\(output.standardError)")
        let recorded = context["allocatorEnvironment"] as? [String]
        #expect(recorded == ["GLIBC_TUNABLES=\(tunable)", "MALLOC_ARENA_MAX=2"], "\(String(describing: recorded))")
        let lines = output.standardError.components(separatedBy: "\n")
        let warnings = lines.filter { $0.contains("GLIBC_TUNABLES=\(tunable)") }
        #expect(warnings.count == 1, "one warning line on stderr: \(output.standardError)")
        #expect(lines.first == warnings.first, "said before the first trial: \(output.standardError)")
        #expect(!output.standardOutput.contains("allocator settings"), "\(output.standardOutput)")
        #expect(
            warnings.first?.contains("MALLOC_ARENA_MAX=2") == true && warnings.first?.contains("trials.json") == true,
            "\(warnings)"
        )
    }

    @Test func noSettingNoWarning() throws {
        let inherited = ProcessInfo.processInfo.environment.keys.filter {
            $0 == "GLIBC_TUNABLES" || $0.hasPrefix("MALLOC_")
        }
        try #require(inherited.isEmpty, "the test runner's own environment sets \(inherited)")
        let (output, context) = try Self.measure(environment: [:])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(context["allocatorEnvironment"] == nil)
        #expect(!(output.standardOutput + output.standardError).contains("GLIBC_TUNABLES"))
        #expect(!(output.standardOutput + output.standardError).contains("allocator settings"))
    }

    /// Commands without a trials.json say so on stderr: the setting is named, and where it is not kept.
    @Test func aScrollWarnsToo() throws {
        let folder = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run(
            [
                "scenario", "list-scroll", "--rows", "4", "--visible", "2", "--speed", "1000",
                "--sizes", "64x64", "--render", "none", "--out", "out",
            ],
            workingDirectory: folder,
            extraEnvironment: ["MALLOC_ARENA_MAX": "1"]
        )
        #expect(output.status == 0, "\(output.standardError)")
        #expect(
            output.standardError.contains("MALLOC_ARENA_MAX=1 (not recorded in list-scroll.csv)"),
            "\(output.standardError)"
        )
    }
}
