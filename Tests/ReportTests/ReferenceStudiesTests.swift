import Foundation
import ReferenceDocuments
import Report
import Testing

/// `bench-reference measure`: the studies' steps run in order by real processes, and each study's recipe.
///
/// A class, so that each test's scratch folder goes with the test (`deinit`), whatever the test does.
@Suite final class ReferenceStudiesTests {
    let scratch = FileManager.default.temporaryDirectory
        .appendingPathComponent("reference-studies-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// A step appending `word` to the log, then exiting with `status`.
    func logging(_ word: String, status: Int32 = 0, tolerated: Set<Int32> = []) -> StudyStep {
        .run(["sh", "-c", "echo \(word) >> '\(path("log"))'; exit \(status)"], tolerated: tolerated)
    }

    /// A file in the scratch folder (the studies' steps take any path; these are absolute).
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    func log() throws -> [String] {
        try String(contentsOf: scratch.appendingPathComponent("log"), encoding: .utf8).split(separator: "\n")
            .map(String.init)
    }

    func run(_ steps: [StudyStep]) throws(StudyRunner.Failure) { try StudyRunner.run(steps) }

    /// A step that fails stops the study with the step's own status; the steps after it do not run. A
    /// status the step tolerates (a scenario row failed by its fault) does not stop it.
    @Test func aFailedStepStopsTheStudyWithItsStatus() throws {
        var failure: StudyRunner.Failure?
        do {
            try run([
                logging("one"), logging("two", status: 3, tolerated: [3]), logging("three", status: 4), logging("four"),
            ])
        } catch { failure = error }
        #expect(try log() == ["one", "two", "three"])
        #expect(failure?.status == 4)
        #expect(failure?.description.contains("exited with status 4") == true)
    }

    /// Each study that ends records which build measured it, keeping the other studies' entries; a
    /// study that fails records nothing. The report's table names each study's commit, and a study
    /// without an entry as not recorded.
    @Test func aStudyThatEndsRecordsItsBuildAndTheReportNamesIt() throws {
        let bench = ProcessInfo.processInfo.arguments[0]
        try run([
            logging("one"), .recordProvenance(study: "matrix", binary: bench, checkoutOf: bench, folder: scratch.path),
        ])
        try run([.recordProvenance(study: "sweep", binary: "/no/such/binary", checkoutOf: bench, folder: scratch.path)])
        do {
            try run([
                logging("two", status: 4),
                .recordProvenance(study: "corpus", binary: bench, checkoutOf: bench, folder: scratch.path),
            ])
        } catch {}
        let record = try ReferenceProvenance.load(from: scratch)
        #expect(record.studies.keys.sorted() == ["matrix", "sweep"])
        let matrix = try #require(record.studies["matrix"])
        #expect(matrix.build.count == 40 && matrix.build.allSatisfy(\.isHexDigit), "\(matrix)")
        #expect(matrix.measured.count == 10 && matrix.measured.hasPrefix("20"), "\(matrix)")
        #expect(record.studies["sweep"]?.build == "unknown")

        let rows = MarkdownTable.parse(record.table())
        #expect(rows.first == ["study", "feeds", "measured", "commit", "build"])
        #expect(rows.dropFirst().map(\.[0]) == ReferenceStudies.Study.recorded.map(\.rawValue))
        let matrixRow = try #require(rows.first { $0[0] == "matrix" })
        #expect(
            matrixRow[2] == matrix.measured && matrixRow[3] == matrix.commitText
                && matrixRow[4] == String(matrix.build.prefix(12))
        )
        #expect(rows.first { $0[0] == "corpus" }?[2] == "not recorded")
        #expect(record.values()["reference_matrix_commit"] == "commit \(matrix.commitText), \(matrix.measured)")
    }

    /// A step killed by a signal reads as 128 + the signal, as the shell reports it, and stops the study.
    @Test func aStepKilledBySignalStopsTheStudy() throws {
        var failure: StudyRunner.Failure?
        do { try run([.run(["sh", "-c", "kill -9 $$"]), logging("after")]) } catch { failure = error }
        let status = try #require(failure).status
        #expect(status == 128 + SIGKILL, "\(status)")
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("log").path))
    }

    /// A step's stdout replaces its output file; a status the step tolerates (a comparison that reports
    /// a regression) does not stop the study; copies replace their destination.
    @Test func outputsAndCopiesReplaceTheirFiles() throws {
        try Data("old old old\n".utf8).write(to: scratch.appendingPathComponent("out.md"))
        try Data("stale\n".utf8).write(to: scratch.appendingPathComponent("copy.md"))
        try run([
            .makeFolder(path("deep/er")),
            .run(["sh", "-c", "echo report; exit 2"], tolerated: [2], output: path("out.md")),
            .copy(from: path("out.md"), to: path("copy.md")),
            .copy(from: path("out.md"), to: path("deep/er/copy.md")),
            .remove(path("out.md")),
            logging("done"),
        ])
        #expect(try String(contentsOf: scratch.appendingPathComponent("copy.md"), encoding: .utf8) == "report\n")
        #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("deep/er/copy.md").path))
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("out.md").path))
        #expect(try log() == ["done"])
    }

    /// A copy whose source is missing fails the study and leaves the destination (a committed file) as it was.
    @Test func aFailedCopyLeavesItsDestination() throws {
        try Data("committed\n".utf8).write(to: scratch.appendingPathComponent("kept.csv"))
        var failure: StudyRunner.Failure?
        do { try run([.copy(from: path("missing.csv"), to: path("kept.csv"))]) } catch { failure = error }
        #expect(failure?.status == 70)
        let kept = try String(contentsOf: scratch.appendingPathComponent("kept.csv"), encoding: .utf8)
        #expect(kept == "committed\n")
    }

    /// A step that fails leaves its output file (a committed file) as it was: its stdout is not kept.
    @Test func aFailedStepLeavesItsOutputFile() throws {
        try Data("committed\n".utf8).write(to: scratch.appendingPathComponent("compare.md"))
        var failure: StudyRunner.Failure?
        do {
            try run([.run(["sh", "-c", "echo partial; exit 5"], tolerated: [2], output: path("compare.md"))])
        } catch { failure = error }
        #expect(failure?.status == 5)
        let kept = try String(contentsOf: scratch.appendingPathComponent("compare.md"), encoding: .utf8)
        #expect(kept == "committed\n")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(left == ["compare.md"], "\(left)")
    }

    /// A step that ends by SIGINT (Ctrl-C reached it) stops the study even where its failure is data.
    @Test func aStepStoppedByCtrlCStopsTheStudy() throws {
        var failure: StudyRunner.Failure?
        do {
            try run([.run(["sh", "-c", "kill -INT $$"], tolerated: [130]), logging("after")])
        } catch { failure = error }
        #expect(failure?.status == 128 + SIGINT)
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("log").path))
    }

    /// A step that cannot be carried out (its program is missing) stops the study with 70 or the
    /// launcher's 127, never as a success.
    @Test func aMissingProgramStopsTheStudy() throws {
        var failure: StudyRunner.Failure?
        do { try run([.run([path("no-such-program")]), logging("after")]) } catch { failure = error }
        #expect(failure.map { [70, 127].contains($0.status) } == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("log").path))
    }

    static let studies = ReferenceStudies(
        bench: ".build/release/bench",
        results: "results",
        swift: "swift",
        corpusImages: "/cache/corpus",
        documents: ["README.md", "docs/A.md"]
    )

    /// The lines `--dry-run` prints for `study`.
    static func lines(_ study: ReferenceStudies.Study) -> [String] { studies.steps(study).map(\.shellLine) }

    /// `all` measures every study of the reference once, in order, and regenerates the documents once,
    /// last (a study's own documents step would redraw them from half-measured results).
    @Test func allMeasuresEachStudyOnceThenTheDocuments() {
        let all = Self.lines(.all)
        let documents = Self.lines(.documents)
        #expect(
            documents == ["BENCH=.build/release/bench DOCUMENTS='README.md docs/A.md' bash scripts/plots.sh results"]
        )
        #expect(all.filter { $0 == documents[0] }.count == 1)
        #expect(all.last == documents[0])
        // The order of the reference's recipe: the matrix first, the image server and its budget last.
        #expect(
            ReferenceStudies.Study.measuredByAll.map(\.rawValue) == [
                "matrix", "sweep", "cold-warm", "corpus", "jobs", "encodings", "decode-time", "example",
                "scenario", "residency-cost", "holders", "server", "server-budget",
            ]
        )
        var expected: [String] = []
        for study in ReferenceStudies.Study.measuredByAll {
            expected += Self.lines(study).filter { $0 != documents[0] }
        }
        #expect(Array(all.dropLast()) == expected)
        for study: ReferenceStudies.Study in [.overhead, .validation, .holdersValidation] {
            #expect(Self.lines(study).allSatisfy { !all.contains($0) })
        }
    }

    /// The scenario files are measured whole into scratch folders and copied over the committed ones only
    /// after the last measurement: a failed step leaves results/ as it was.
    @Test func scenarioCopiesOnlyAfterEveryMeasurement() throws {
        let steps = Self.studies.steps(.scenario)
        let lastRun = try #require(
            steps.lastIndex {
                if case .run(let arguments, _, _, _) = $0 { arguments[0] == ".build/release/bench" } else { false }
            }
        )
        let copies = steps.indices.filter { if case .copy = steps[$0] { true } else { false } }
        #expect(copies.count == 4)
        #expect(copies.allSatisfy { $0 > lastRun })
        // 1 caps run, 3 memory limits, 2 x (1 + 3 faults), 4 speeds.
        #expect(steps.filter { $0.shellLine.contains(" scenario list-scroll ") }.count == 16)
        // The memory limits and the faults exit 3 for their failed rows; the others must succeed.
        let tolerating = steps.filter {
            if case .run(_, _, let tolerated, _) = $0 { tolerated == [3] } else { false }
        }
        #expect(tolerating.count == 9)
    }

    /// Every folder a study measures into (`--out`, SCRATCH), every file it writes a program's output
    /// to, copies over, removes or creates is in results/ or its scratch folders, never beside them.
    @Test func everyStudyWritesOnlyIntoResultsOrScratch() {
        let allowed = ["results/", "/tmp/image-memory-bench-", "/cache/corpus"]
        for study in ReferenceStudies.Study.allCases {
            for step in Self.studies.steps(study) {
                var written: [String] = []
                switch step {
                case .run(let arguments, let environment, _, let output):
                    for (index, argument) in arguments.enumerated() where argument == "--out" {
                        written.append(arguments[index + 1])
                    }
                    written += output.map { [$0] } ?? []
                    written += environment["SCRATCH"].map { [$0] } ?? []
                case .copy(_, let to): written.append(to)
                case .remove(let path), .makeFolder(let path): written.append(path)
                case .recordProvenance(_, _, _, let folder): written.append(folder)
                }
                for path in written {
                    #expect(
                        path == "results" || allowed.contains { path.hasPrefix($0) },
                        "\(study.rawValue) writes \(path)"
                    )
                }
            }
        }
    }

    /// The holders study is the committed reference's: four strategies, three renders, two allocators,
    /// 20 runs a cell, into results/holders/, and its 30 MB timeline is not kept.
    @Test func holdersMeasuresTwentyRunsOfEachCell() {
        #expect(
            Self.lines(.holders) == [
                ".build/release/bench run --strategy data --strategy download --strategy async-data --strategy "
                    + "contents-of --render none --render full --render thumbnail --allocator system --allocator "
                    + "jemalloc --runs 20 --out results/holders --replace",
                "rm -rf results/holders/timeline.csv",
                "# record in results/provenance.json: holders measured by .build/release/bench",
            ]
        )
    }

    /// A word the shell would split or expand is quoted in the printed line.
    @Test func shellLinesQuoteWhatTheShellWouldSplit() {
        let step = StudyStep.run(["echo", "it's here", "$HOME", "plain"], environment: ["A": "b c"], output: "o ut")
        #expect(step.shellLine == #"A='b c' echo 'it'\''s here' '$HOME' plain > 'o ut'"#)
    }
}
