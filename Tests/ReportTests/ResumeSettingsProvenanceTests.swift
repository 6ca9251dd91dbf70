import BenchCore
import Foundation
import Report
import Testing

/// settings.json records the binary that started a run: `--resume` with another binary is refused
/// (rows of two builds are not one run), and a folder recorded without a build resumes as before.
struct ResumeSettingsProvenanceTests {
    static func provenance(build: String) -> Provenance {
        Provenance(
            build: build,
            commit: "c1",
            dirty: false,
            commitSource: "BENCH_COMMIT",
            toolchain: "Swift 6.3",
            libraries: ["libpng": "1.6.39"]
        )
    }

    static func settings(_ provenance: Provenance?) -> RunSettings {
        RunSettings(command: "run", runID: "r1", settings: [("--runs", "3")], provenance: provenance)
    }

    @Test func anotherBuildIsADifference() {
        let differences = Self.settings(Self.provenance(build: "bb")).differences(
            from: Self.settings(Self.provenance(build: "aa"))
        )
        #expect(
            differences == [
                "the bench binary (build ID): aa then, bb now; resume with the binary that started the run"
            ]
        )
        #expect(
            Self.settings(Self.provenance(build: "aa")).differences(from: Self.settings(Self.provenance(build: "aa")))
                .isEmpty
        )
    }

    @Test func aFolderRecordedWithoutABuildResumes() {
        #expect(Self.settings(Self.provenance(build: "bb")).differences(from: Self.settings(nil)).isEmpty)
    }

    /// What settings.json holds is read back whole: the provenance round-trips.
    @Test func theProvenanceIsReadBack() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.settings(Self.provenance(build: "aa")).write(into: folder)
        let read = try #require(try RunSettings.read(from: folder))
        #expect(read == Self.settings(Self.provenance(build: "aa")))
        #expect(read.build == "aa" && read.commit == "c1" && read.libraries == ["libpng": "1.6.39"])
    }
}
