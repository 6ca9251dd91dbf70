import ArgumentParser
import BenchCore
import Foundation
import ReferenceDocuments
import Report

/// `bench-reference overhead SCRATCH OUT`: scripts/overhead.sh's runs reduced to results/overhead/.
struct OverheadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overhead",
        abstract: "Reduce scripts/overhead.sh's runs to phases.csv, settle.csv and timings.csv.",
        discussion: """
            SCRATCH holds <label>/timings.csv and <label>/<workload>-j<jobs>-<repeat>/ (trials.json, timeline.csv) \
            for each label (fixed: the settle as a fixed 50 ms pause; rule: the settle rule), as \
            scripts/jobs-timing.sh leaves them. On the fixed runs the settle rule is replayed on each trial's \
            samples (settle.csv). `bench-reference measure overhead` runs it into results/overhead/.

            Exit status: 0 done; 64 bad command-line input; 65 a run's file is malformed; 66 SCRATCH has no \
            runs; 73 OUT cannot be written.
            """
    )

    @Argument(help: "The folder scripts/overhead.sh measured into.")
    var scratch: String

    @Argument(help: "The folder the three files are written to (created when missing).")
    var out: String

    func run() throws {
        let files: [(name: String, text: String)]
        do { files = try OverheadStudy.reduce(scratch: URL(fileURLWithPath: scratch, isDirectory: true)) } catch {
            throw BenchReference.fail(.badInput, error.description)
        }
        guard !files.isEmpty else {
            throw BenchReference.fail(.noInput, "\(scratch) holds no runs (<label>/timings.csv and run folders)")
        }
        let folder = URL(fileURLWithPath: out, isDirectory: true)
        for file in files {
            let url = folder.appendingPathComponent(file.name)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try AtomicFile.write(Data(file.text.utf8), to: url)
            } catch {
                throw BenchReference.fail(.cannotCreateOutput, "cannot write \(url.path): \(error)")
            }
            print("overhead: \(file.text.split(separator: "\n").count - 1) rows in \(url.path)")
        }
    }
}
