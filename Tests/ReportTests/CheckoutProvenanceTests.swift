import BenchCore
import Foundation
import Report
import Testing

/// The commit a binary records is the environment's, or its checkout's only while the checkout is
/// what was built; anything else is unknown with its reason, never a guess.
struct CheckoutProvenanceTests {
    /// A package folder with a binary in .build/release and a source file.
    static func package(sourceNewerThanBinary: Bool) throws -> (root: URL, binary: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("provenance-\(UUID().uuidString)")
        let release = root.appendingPathComponent(".build/release", isDirectory: true)
        try FileManager.default.createDirectory(at: release, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Sources/tool"),
            withIntermediateDirectories: true
        )
        try Data("// swift-tools-version: 6.1\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
        let source = root.appendingPathComponent("Sources/tool/main.swift")
        let binary = release.appendingPathComponent("tool")
        try Data("print(1)\n".utf8).write(to: source)
        try Data("binary".utf8).write(to: binary)
        let (older, newer) = sourceNewerThanBinary ? (binary, source) : (source, binary)
        // One date for both: two readings of the clock would make Package.swift newer than the binary.
        let past = Date(timeIntervalSinceNow: -60)
        for file in [older.path, root.appendingPathComponent("Package.swift").path] {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: file)
        }
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: newer.path)
        return (root, binary.path)
    }

    @Test func theEnvironmentsCommitComesFirst() {
        let found = CheckoutCommit.find(environment: ["BENCH_COMMIT": "abc", "GITHUB_SHA": "def"])
        #expect(found.commit == "abc" && found.dirty == nil && found.source == "BENCH_COMMIT", "\(found)")
        let actions = CheckoutCommit.find(environment: ["BENCH_COMMIT": "", "GITHUB_SHA": "def"])
        #expect(actions.commit == "def" && actions.dirty == nil && actions.source == "GITHUB_SHA", "\(actions)")
    }

    @Test func aBinaryOutsideABuildFolderHasNoKnownCommit() {
        let found = CheckoutCommit.find(environment: [:], executable: "/usr/bin/env")
        #expect(found.commit == Provenance.unknown && found.dirty == nil, "\(found)")
        #expect(found.source.contains("not in a SwiftPM .build folder"), "\(found)")
    }

    @Test func aSourceChangedAfterTheBuildMakesTheCommitUnknown() throws {
        let (root, binary) = try Self.package(sourceNewerThanBinary: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let found = CheckoutCommit.find(environment: [:], executable: binary)
        #expect(found.commit == Provenance.unknown, "\(found)")
        #expect(found.source.contains("/Sources/tool") && found.source.contains(" changed after "), "\(found)")
    }

    @Test func aCheckoutWithoutGitHasNoKnownCommit() throws {
        let (root, binary) = try Self.package(sourceNewerThanBinary: false)
        defer { try? FileManager.default.removeItem(at: root) }
        let found = CheckoutCommit.find(environment: [:], executable: binary)
        #expect(found.commit == Provenance.unknown, "\(found)")
        #expect(found.source.contains("no git commit readable"), "\(found)")
    }

    /// A build is "with uncommitted changes" when what it reads (Package.swift, Package.resolved,
    /// Sources/) differs from the commit, and only then: a re-measure writing results/ beside a clean
    /// build does not make it dirty.
    @Test func onlyAChangedBuildInputMakesTheCommitDirty() throws {
        let (root, binary) = try Self.package(sourceNewerThanBinary: false)
        defer { try? FileManager.default.removeItem(at: root) }
        func git(_ arguments: String...) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["git", "-C", root.path, "-c", "user.name=t", "-c", "user.email=t@t"] + arguments
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "git \(arguments)")
        }
        try git("init", "-q")
        try git("add", "-A", "--", "Package.swift", "Sources")
        try git("commit", "-q", "-m", "package")
        try Data("measured\n".utf8).write(to: root.appendingPathComponent("results.csv"))
        let clean = CheckoutCommit.find(environment: [:], executable: binary)
        #expect(clean.commit.count == 40 && clean.dirty == false, "\(clean)")

        // A source edited but dated before the binary: the build may not contain the commit's code.
        let source = root.appendingPathComponent("Sources/tool/main.swift")
        try Data("print(\"changed\")\n".utf8).write(to: source)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -60)],
            ofItemAtPath: source.path
        )
        let changed = CheckoutCommit.find(environment: [:], executable: binary)
        #expect(changed.commit == clean.commit && changed.dirty == true, "\(changed)")
    }

    /// Two sides of one build say nothing; of two builds, or with a side unknown, a line names both.
    @Test func differentBuildsAreNamed() {
        let one = Provenance(
            build: "aa",
            commit: "c1",
            dirty: true,
            commitSource: "checkout /x",
            toolchain: "Swift 6.3",
            libraries: [:]
        )
        var other = one
        other.build = "bb"
        #expect(Provenance.differentBuilds(("baseline", one), ("current", one)) == nil)
        #expect(
            Provenance.differentBuilds(("baseline", one), ("current", other))
                == "note: different builds: baseline build aa, commit c1 with uncommitted changes; "
                + "current build bb, commit c1 with uncommitted changes"
        )
        #expect(
            Provenance.differentBuilds(("baseline", nil), ("current", nil))
                == "note: not known to be the same build: baseline build unknown, commit unknown; "
                + "current build unknown, commit unknown"
        )
    }
}
