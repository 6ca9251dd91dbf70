import Foundation
import TestSupport
import Testing

/// Every results folder names the binary that measured it: the bench binary's GNU build ID, the
/// commit it was built from, the toolchain and the measured libraries' versions, in trials.json's
/// context, settings.json and environment.txt; and `bench compare` says when two sides come from
/// different builds.
@Suite struct ProvenanceTests {
    static let smallRun = [
        "run", "--strategy", "download", "--render", "none", "--allocator", "system", "--runs", "1",
        "--width", "320", "--height", "240",
    ]
    static let libraries = ["glibc", "jemalloc", "libcurl", "libjpeg-turbo", "libpng", "libwebp", "libheif"]
    /// The Debian package of each library, whose version dpkg-query gives independently of bench.
    static let packages = [
        "glibc": "libc6", "libcurl": "libcurl4", "libjpeg-turbo": "libjpeg62-turbo", "libpng": "libpng16-16",
        "libwebp": "libwebp7", "libheif": "libheif1", "jemalloc": "libjemalloc2",
    ]

    /// A finished run's folder and its three files, parsed.
    struct Folder {
        let path: URL
        let context: [String: Any]
        let settings: [String: Any]
        let environment: String

        init(_ path: URL) throws {
            self.path = path
            func json(_ name: String) throws -> [String: Any] {
                let data = try Data(contentsOf: path.appendingPathComponent(name))
                return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
            }
            context = try #require(try json("trials.json")["context"] as? [String: Any])
            settings = try json("settings.json")
            environment = try String(contentsOf: path.appendingPathComponent("environment.txt"), encoding: .utf8)
        }

        /// environment.txt's value for `label` ("build" -> the text after "build:").
        func line(_ label: String) -> String? {
            environment.split(separator: "\n").first { $0.hasPrefix("\(label):") }
                .map { $0.dropFirst(label.count + 1).trimmingCharacters(in: .whitespaces) }
        }
    }

    static func measure(environment: [String: String]) throws -> Folder {
        let out = BenchProcess.temporaryFolder()
        let output = try BenchProcess.run(smallRun + ["--out", out.path], extraEnvironment: environment)
        #expect(output.status == 0, "\(output.standardError)")
        return try Folder(out)
    }

    /// A program's standard output, or nil when it cannot run or fails.
    static func output(_ arguments: [String], in folder: URL? = nil) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }

    /// The build ID as binutils' readelf reads it from the binary, independently of bench.
    static var readelfBuildID: String? {
        output(["readelf", "-n", BenchProcess.executable])?.split(separator: "\n")
            .first { $0.contains("Build ID:") }?.split(separator: " ").last.map(String.init)
    }

    @Test func aRunRecordsItsBuildCommitAndLibrariesInEveryFile() throws {
        let folder = try Self.measure(environment: ["BENCH_COMMIT": "0123abcd-provenance-test"])
        defer { try? FileManager.default.removeItem(at: folder.path) }
        let build = try #require(Self.readelfBuildID, "readelf -n reads a GNU build ID from the bench binary")
        #expect(build.count == 40, "\(build)")

        for (name, record) in [("trials.json's context", folder.context), ("settings.json", folder.settings)] {
            #expect(record["build"] as? String == build, "\(name): \(record)")
            #expect(record["commit"] as? String == "0123abcd-provenance-test", "\(name): \(record)")
            #expect(record["commitSource"] as? String == "BENCH_COMMIT", "\(name)")
            #expect(record["dirty"] == nil, "\(name): no tree was read, so whether it had changes is unknown")
            #expect((record["toolchain"] as? String)?.hasPrefix("Swift 6.") == true, "\(name): \(record)")
            let libraries = try #require(record["libraries"] as? [String: String], "\(name): \(record)")
            #expect(Set(libraries.keys) == Set(Self.libraries), "\(name): \(libraries)")
            for (library, version) in libraries {
                // Each library's own version is the upstream part of its installed package's.
                let package = try #require(
                    Self.output(["dpkg-query", "-W", "-f", "${Version}", Self.packages[library]!])
                )
                let upstream = version.split(separator: " ").first.map(String.init) ?? ""
                #expect(
                    !upstream.isEmpty && package.contains(upstream),
                    "\(name): \(library) \(version), package \(package)"
                )
                #expect(folder.line(library)?.hasPrefix(upstream) == true, "environment.txt: \(folder.environment)")
            }
        }
        #expect(folder.line("build")?.hasPrefix(build) == true, "\(folder.environment)")
        #expect(
            folder.line("commit")?.hasPrefix("0123abcd-provenance-test (BENCH_COMMIT)") == true,
            "\(folder.environment)"
        )
    }

    /// Without BENCH_COMMIT the commit is the checkout's the binary was built in, with whether it had
    /// changes, or unknown with the reason: never a guess.
    @Test func withoutBenchCommitTheCommitIsTheCheckoutsOrUnknown() throws {
        let folder = try Self.measure(environment: ["BENCH_COMMIT": "", "GITHUB_SHA": ""])
        defer { try? FileManager.default.removeItem(at: folder.path) }
        for record in [folder.context, folder.settings] {
            let commit = try #require(record["commit"] as? String, "\(record)")
            let source = try #require(record["commitSource"] as? String, "\(record)")
            if commit == "unknown" {
                #expect(record["dirty"] == nil && !source.isEmpty, "\(record)")
                continue
            }
            let head = Self.output(["git", "rev-parse", "HEAD"], in: packageRoot)?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(commit == head, "\(record)")
            #expect(source == "checkout \(packageRoot.path)", "\(record)")
            // Dirty: a change to what the binary is built from (a change to a test or a doc is not one).
            let status = try #require(
                Self.output(
                    ["git", "status", "--porcelain", "--", "Package.swift", "Package.resolved", "Sources"],
                    in: packageRoot
                )
            )
            #expect(record["dirty"] as? Bool == !status.isEmpty, "\(record)")
        }
        #expect(folder.line("commit")?.hasPrefix(folder.context["commit"] as! String) == true, "\(folder.environment)")
    }

    /// `bench compare` names both builds when its two sides come from different binaries, says
    /// nothing when they come from one, and calls a side that records none unknown.
    @Test func compareSaysWhenTheSidesComeFromDifferentBuilds() throws {
        let folder = try Self.measure(environment: ["BENCH_COMMIT": "1111"])
        defer { try? FileManager.default.removeItem(at: folder.path) }
        let build = try #require(folder.context["build"] as? String)
        let trials = try String(contentsOf: folder.path.appendingPathComponent("trials.json"), encoding: .utf8)
        let other = BenchProcess.temporaryFolder()
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: other) }
        let otherBuild = String(repeating: "0", count: 40)
        let rebuilt = trials.replacingOccurrences(of: build, with: otherBuild)
            .replacingOccurrences(of: "\"1111\"", with: "\"2222\"")
        try rebuilt.write(to: other.appendingPathComponent("rebuilt.json"), atomically: true, encoding: .utf8)
        try trials.write(to: other.appendingPathComponent("same.json"), atomically: true, encoding: .utf8)
        let thresholds = GateThresholdsFile.path
        func compare(_ baseline: String, _ current: String) throws -> String {
            InProcessBench.run(["compare", baseline, current, "--thresholds", thresholds]).standardOutput
        }
        let original = folder.path.appendingPathComponent("trials.json").path

        let different = try compare(original, other.appendingPathComponent("rebuilt.json").path)
        #expect(
            different.contains(
                "note: different builds: baseline build \(build), commit 1111; current build \(otherBuild), commit 2222"
            ),
            "\(different)"
        )
        let same = try compare(original, other.appendingPathComponent("same.json").path)
        #expect(!same.contains("note: "), "\(same)")
        // A trials.csv beside its trials.json has that run's provenance.
        let csv = try compare(folder.path.appendingPathComponent("trials.csv").path, original)
        #expect(!csv.contains("note: "), "\(csv)")

        // A file from an older bench records no build: unknown, not the same.
        let old = trials.replacingOccurrences(of: "\"build\"", with: "\"formerly\"")
        try old.write(to: other.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        let unknown = try compare(other.appendingPathComponent("old.json").path, original)
        #expect(
            unknown.contains(
                "note: not known to be the same build: baseline build unknown, commit unknown; "
                    + "current build \(build), commit 1111"
            ),
            "\(unknown)"
        )
    }
}
