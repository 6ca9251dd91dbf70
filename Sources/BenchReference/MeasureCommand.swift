import ArgumentParser
import BenchCore
import Foundation
import ReferenceDocuments
import Report

/// `bench-reference measure STUDY`: re-measures a study of the committed reference into results/
/// (`make reference` runs `all`, then the tests that read results/).
struct MeasureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Re-measure a study of the committed reference (results/); review and commit what changes.",
        discussion: """
            Run from the package's root, after `swift build -c release`. Each study's steps are printed as \
            shell lines before they run (--dry-run prints them only). The studies: \
            \(ReferenceStudies.Study.allCases.map(\.rawValue).joined(separator: ", ")). `all` is every study \
            but overhead and the two validations (over an hour), then the documents.

            Exit status: 0 done; 64 bad command-line input; 66 the bench binary is missing; 73 the study lock \
            (/tmp/image-memory-bench.lock) cannot be opened; 75 another study holds it; 70 a step could not be \
            carried out; a failed step's own status otherwise; 128 + N when stopped by signal N (passed on to \
            the running step, which winds down as at a terminal's Ctrl-C; a second signal kills it).
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The study to re-measure.",
            valueName: ReferenceStudies.Study.allCases.map(\.rawValue).joined(separator: "|")
        )
    )
    var study: String

    @Option(help: "The committed reference folder.")
    var results = "results"

    @Option(help: "The bench binary (default: the one beside bench-reference).")
    var bench: String?

    @Flag(help: "Print the steps without running them.")
    var dryRun = false

    func run() throws {
        guard let chosen = ReferenceStudies.Study(rawValue: study) else {
            throw BenchReference.fail(
                .usage,
                "no study named '\(study)'; the studies are "
                    + ReferenceStudies.Study.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        guard !results.isEmpty, !results.hasPrefix("-") else {
            throw BenchReference.fail(
                .usage,
                "--results '\(results)' is not a folder's name; give the reference folder, e.g. results"
            )
        }
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? NSHomeDirectory()
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.cache"
        let studies = ReferenceStudies(
            bench: bench ?? Self.besideThisTool("bench"),
            results: results,
            swift: environment["SWIFT"] ?? "swift",
            corpusImages: "\(cache)/image-memory-bench/corpus",
            documents: Self.documents()
        )
        let steps = studies.steps(chosen)
        if dryRun {
            for step in steps { print(step.shellLine) }
            return
        }
        guard FileManager.default.isExecutableFile(atPath: studies.bench) else {
            throw BenchReference.fail(
                .noInput,
                "the bench binary \(studies.bench) is missing or not executable: run `swift build -c release`, "
                    + "or give it with --bench"
            )
        }
        // The studies measure into fixed scratch folders (/tmp/image-memory-bench-*): one study at a time.
        let lockPath = "\(studies.scratchPrefix).lock"
        let lock: PIDFileLock
        do { lock = try PIDFileLock(path: lockPath) } catch {
            switch error {
            case .busy(let holder):
                throw BenchReference.fail(
                    .outputBusy,
                    "another bench-reference measure (pid \(holder.map(String.init) ?? "unknown")) holds \(lockPath): "
                        + "the studies share their scratch folders; wait for it to end"
                )
            case .cannotOpen(let reason), .cannotWrite(let reason):
                throw BenchReference.fail(.cannotCreateOutput, "cannot take the study lock \(lockPath): \(reason)")
            }
        }
        defer { withExtendedLifetime(lock) {} }
        StudyRunner.handleStopSignals()
        do {
            try StudyRunner.run(steps, tool: Self.thisTool()) { line in
                StandardError.write("bench-reference: \(line)\n")
            }
        } catch {
            StandardError.write("bench-reference: \(chosen.rawValue) stopped: \(error.description)\n")
            throw ExitCode(error.status)
        }
    }

    /// This binary, which each step's program runs under (`bench-reference _step`).
    static func thisTool() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// `name` in this tool's own folder: beside the path it was invoked by (.build/release/bench-reference
    /// gives .build/release/bench), or beside its binary when it was found on PATH.
    static func besideThisTool(_ name: String) -> String {
        let invoked = CommandLine.arguments[0]
        let tool = invoked.contains("/") ? invoked : thisTool()
        return (tool as NSString).deletingLastPathComponent + "/" + name
    }

    /// README.md and docs/*.md, sorted: the documents with marked figures.
    static func documents() -> [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: "docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }
}
