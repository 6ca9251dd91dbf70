import BenchCore
import Corpus
import Foundation
import Harness
import LoopbackServer
import Report
import TestSupport
import Testing

/// Every reader of a per-run file knows its key and refuses a row that would count a run twice or
/// mix two runs (65, naming the file, the line and the key); a folder belongs to one command.
@Suite struct RowKeyTests {
    static let tiny = [
        "--strategy", "data", "--render", "none", "--allocator", "system",
        "--width", "64", "--height", "48",
    ]
    static let repeated = "line 4 repeats the key of line 2"

    /// `bench report` over `out`, its files written beside it in `folder`.
    static func report(_ out: URL, in folder: URL) throws -> CommandOutput {
        InProcessBench.run([
            "report", "--results", out.path, "--data-out", folder.appendingPathComponent("data").path,
            "--report-file", folder.appendingPathComponent("REPORT.md").path,
        ])
    }

    /// A fixture of `width` x `height` at `file` (a JPEG).
    static func fixture(_ file: URL, width: Int, height: Int) throws {
        let made = InProcessBench.run(["fixture", "--width", "\(width)", "--height", "\(height)", "--out", file.path])
        try #require(made.status == 0, "\(made.standardError)")
    }

    /// A corpus run of `corpus` measuring one run of download without rendering, into `out`.
    static func corpusRun(_ corpus: URL, out: String) -> [String] {
        ["corpus", corpus.path, "--strategy", "download", "--render", "none", "--runs", "1", "--out", out]
    }

    /// Appends a copy of the first data line of `file` at its end.
    static func duplicateFirstRow(of file: URL) throws {
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        let text = (lines + [lines[1]]).joined(separator: "\n") + "\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    /// A copied row whose run is written another way ("01", "+1") is the same run: refused as a duplicate.
    @Test func aRunNumberWrittenAnotherWayIsTheSameKey() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let first = InProcessBench.run(["run"] + Self.tiny + ["--runs", "2", "--out", out.path])
        try #require(first.status == 0, "\(first.standardError)")
        let trials = out.appendingPathComponent("trials.csv")
        let lines = try String(contentsOf: trials, encoding: .utf8).split(separator: "\n").map(String.init)
        try FileManager.default.removeItem(at: out.appendingPathComponent("trials.json"))
        for written in ["01", "+1"] {
            var copy = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            copy[3] = written
            try ((lines + [copy.joined(separator: ",")]).joined(separator: "\n") + "\n").write(
                to: trials,
                atomically: true,
                encoding: .utf8
            )
            let report = try Self.report(out, in: folder)
            #expect(
                report.status == 65 && report.standardError.contains(Self.repeated),
                "run \(written): \(report.standardError)"
            )
        }
    }

    /// A trials.csv with a duplicated (cell, run) row is refused by report, compare and --resume,
    /// with trials.json beside it or not; so is a row of another run id.
    @Test func aDuplicatedOrForeignTrialsRowIsRefusedByEveryReader() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let run = ["run"] + Self.tiny + ["--runs", "2", "--out", out.path]
        let first = InProcessBench.run(run)
        try #require(first.status == 0, "\(first.standardError)")
        let trials = out.appendingPathComponent("trials.csv")
        let original = try String(contentsOf: trials, encoding: .utf8)
        try Self.duplicateFirstRow(of: trials)
        let key = "strategy data, render none, allocator system, run 1"

        let report = try Self.report(out, in: folder)
        #expect(report.status == 65, "\(report.standardError)")
        #expect(
            report.standardError.contains(trials.path) && report.standardError.contains(Self.repeated)
                && report.standardError.contains(key),
            "\(report.standardError)"
        )

        let compare = InProcessBench.run([
            "compare", out.appendingPathComponent("trials.json").path, trials.path,
            "--thresholds", CompareCommandTests.thresholdsFile,
        ])
        #expect(compare.status == 65, "\(compare.standardError)")
        #expect(
            compare.standardError.contains("trials.csv") && compare.standardError.contains(Self.repeated)
                && compare.standardError.contains(key),
            "\(compare.standardError)"
        )

        let resume = InProcessBench.run(run + ["--resume"])
        #expect(resume.status == 65, "\(resume.standardError)")
        #expect(
            resume.standardError.contains(Self.repeated) && resume.standardError.contains(key),
            "\(resume.standardError)"
        )
        #expect(!resume.standardError.contains("runs done"), "nothing counted: \(resume.standardError)")

        // Without trials.json to compare with, the file's own rows still say it.
        try FileManager.default.removeItem(at: out.appendingPathComponent("trials.json"))
        let alone = try Self.report(out, in: folder)
        #expect(alone.status == 65 && alone.standardError.contains(Self.repeated), "\(alone.standardError)")

        // A row of another run (its run_id), its key new: refused by --resume, naming the run settings.json records.
        let lines = original.split(separator: "\n").map(String.init)
        var foreign = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        foreign[3] = "3"
        foreign[foreign.count - 1] = "another-run"
        try (lines + [foreign.joined(separator: ",")]).joined(separator: "\n").appending("\n")
            .write(to: trials, atomically: true, encoding: .utf8)
        let mixed = InProcessBench.run(run + ["--resume"])
        #expect(mixed.status == 65, "\(mixed.standardError)")
        #expect(
            mixed.standardError.contains("line 4") && mixed.standardError.contains("is a row of run another-run")
                && mixed.standardError.contains("settings.json"),
            "\(mixed.standardError)"
        )
    }

    /// sweep.csv's key adds the size: a copied row is refused by --resume.
    @Test func aDuplicatedSweepRowIsRefusedByResume() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sweep = [
            "sweep", "--strategy", "data", "--render", "none", "--runs", "2", "--sizes", "0.05",
            "--out", folder.appendingPathComponent("out").path,
        ]
        let first = InProcessBench.run(sweep)
        try #require(first.status == 0, "\(first.standardError)")
        let rows = folder.appendingPathComponent("out/sweep.csv")
        let written = try JobsTests.rows(folder.appendingPathComponent("out"), file: "sweep.csv")
        let size = try #require(written.first?["target_bytes"])
        try Self.duplicateFirstRow(of: rows)
        let resume = InProcessBench.run(sweep + ["--resume"])
        #expect(resume.status == 65, "\(resume.standardError)")
        let key = "target_bytes \(size), strategy data, render none, allocator system, run 1"
        #expect(
            resume.standardError.contains(rows.path) && resume.standardError.contains(Self.repeated)
                && resume.standardError.contains(key),
            "\(resume.standardError)"
        )
    }

    /// corpus.csv's key is the file, the cell and the run: a copied row is refused by --resume
    /// and by report.
    @Test func aDuplicatedCorpusRowIsRefused() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = try CorpusResumeTests.corpus(images: 2, notes: 0, in: folder)
        let arguments = Self.corpusRun(corpus, out: folder.appendingPathComponent("out").path)
        let first = InProcessBench.run(arguments)
        try #require(first.status == 0, "\(first.standardError)")
        let rows = folder.appendingPathComponent("out/corpus.csv")
        try Self.duplicateFirstRow(of: rows)

        let resume = InProcessBench.run(arguments + ["--resume"])
        #expect(resume.status == 65, "\(resume.standardError)")
        let key = "file img0.jpg, strategy download, render none, allocator system, run 1"
        #expect(
            resume.standardError.contains("corpus.csv") && resume.standardError.contains(Self.repeated)
                && resume.standardError.contains(key),
            "\(resume.standardError)"
        )
        let report = InProcessBench.run(["report", "--results", folder.appendingPathComponent("out").path])
        #expect(report.status == 65 && report.standardError.contains(Self.repeated), "\(report.standardError)")
    }

    /// Real children in the two tests below: the rows must hold the payload of the bytes served, and a
    /// resume must be measured as the run it resumes was.
    /// An image replaced (and another deleted) between a stop and --resume: the replaced one is
    /// measured again from its new bytes, the deleted one's rows are dropped, each named.
    @Test func corpusResumeRemeasuresAReplacedImageAndDropsADeletedOne() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = try CorpusResumeTests.corpus(images: 3, notes: 0, in: folder)
        let arguments = Self.corpusRun(corpus, out: folder.appendingPathComponent("out").path)
        let first = try BenchProcess.run(arguments)
        try #require(first.status == 0, "\(first.standardError)")

        let bigger = folder.appendingPathComponent("bigger.jpg")
        try Self.fixture(bigger, width: 96, height: 80)
        try FileManager.default.removeItem(at: corpus.appendingPathComponent("img0.jpg"))
        try FileManager.default.copyItem(at: bigger, to: corpus.appendingPathComponent("img0.jpg"))
        try FileManager.default.removeItem(at: corpus.appendingPathComponent("img2.jpg"))

        let resume = try BenchProcess.run(arguments + ["--resume"])
        #expect(resume.status == 0, "\(resume.standardError)")
        #expect(resume.standardError.contains("img0.jpg changed since the interrupted run"), "\(resume.standardError)")
        #expect(
            resume.standardError.contains("no longer in the corpus are dropped: img2.jpg"),
            "\(resume.standardError)"
        )
        #expect(resume.standardError.contains("1 of 2 rows done, 1 to go"), "\(resume.standardError)")
        let rows = try JobsTests.rows(folder.appendingPathComponent("out"), file: "corpus.csv")
        #expect(rows.map { $0["file"] ?? "" } == ["img0.jpg", "img1.jpg"], "\(rows)")
        #expect(rows.first?["width"] == "96" && rows.first?["height"] == "80", "the new header: \(rows)")
        let size = try FileManager.default.attributesOfItem(atPath: bigger.path)[.size] as? Int
        #expect(rows.first?["payload_bytes"] == size.map(String.init), "the new payload: \(rows)")
    }

    /// `run --url ... --resume` after the served file changed: refused, naming both sizes and digests;
    /// a trials.csv whose measured rows have two payload sizes is refused by report.
    @Test func runResumeRefusesAURLThatServesOtherBytes() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var bodies: [Data] = []
        for (width, height) in [(64, 48), (96, 80)] {
            let file = folder.appendingPathComponent("\(width).jpg")
            try Self.fixture(file, width: width, height: height)
            bodies.append(try Data(contentsOf: file))
        }
        let server = LoopbackServer()
        server.addResource(path: "/photo.jpg", body: bodies[0], contentType: "image/jpeg")
        try server.start()
        defer { server.shutdown() }
        let run = [
            "run", "--url", server.url(for: "/photo.jpg").absoluteString, "--strategy", "data",
            "--render", "none", "--allocator", "system", "--runs", "2",
            "--out", folder.appendingPathComponent("out").path,
        ]
        let first = try BenchProcess.run(run)
        try #require(first.status == 0, "\(first.standardError)")
        let same = try BenchProcess.run(run + ["--resume"])
        #expect(same.status == 0, "the same bytes resume: \(same.standardError)")

        server.addResource(path: "/photo.jpg", body: bodies[1], contentType: "image/jpeg")
        let changed = try BenchProcess.run(run + ["--resume"])
        #expect(changed.status == 64, "\(changed.standardError)")
        let (then, now) = (bodies[0], bodies[1])
        #expect(
            changed.standardError.contains("\(then.count) bytes, FNV-1a-64 \(StableHash.digest(of: then)) then")
                && changed.standardError.contains("\(now.count) bytes, FNV-1a-64 \(StableHash.digest(of: now)) now"),
            "\(changed.standardError)"
        )

        // Rows of both versions in one file.
        let trials = folder.appendingPathComponent("out/trials.csv")
        var table = try CSV.parse(String(contentsOf: trials, encoding: .utf8))
        let payload = try #require(table[0].firstIndex(of: "payload_bytes"))
        #expect(table[1][payload] == String(bodies[0].count) && table[2][payload] == String(bodies[0].count))
        table[2][payload] = String(bodies[1].count)
        let text = table.map { CSV.line($0) }.joined(separator: "\n") + "\n"
        try text.write(to: trials, atomically: true, encoding: .utf8)
        let report = try Self.report(folder.appendingPathComponent("out"), in: folder)
        #expect(report.status == 65, "\(report.standardError)")
        let mixed =
            "trials.csv mixes payloads of 2 sizes (\(then.count) bytes from line 2, "
            + "\(now.count) bytes from line 3)"
        #expect(report.standardError.contains(mixed), "\(report.standardError)")
    }

    /// `bench corpus --out` a stopped run's folder: refused (73) and the run's settings.json kept;
    /// with --replace the run's files are removed first.
    @Test func corpusOutOverARunFolderIsRefused() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let run = InProcessBench.run(["run"] + Self.tiny + ["--runs", "1", "--out", out.path])
        try #require(run.status == 0, "\(run.standardError)")
        let report = InProcessBench.run(["report", "--results", out.path])
        try #require(report.status == 0, "\(report.standardError)")
        let settings = try Data(contentsOf: out.appendingPathComponent("settings.json"))
        let corpus = try CorpusResumeTests.corpus(images: 1, notes: 0, in: folder)
        let corpusRun = Self.corpusRun(corpus, out: out.path)

        // merge writes a corpus folder: never over a run's either.
        let shard = folder.appendingPathComponent("shard")
        let sharded = InProcessBench.run(Self.corpusRun(corpus, out: shard.path) + ["--shard", "1/1"])
        try #require(sharded.status == 0, "\(sharded.standardError)")
        let merged = InProcessBench.run(["merge", shard.path, "--out", out.path])
        #expect(
            merged.status == 73 && merged.standardError.contains("is a `bench run` folder"),
            "\(merged.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("corpus.csv").path))

        let refused = InProcessBench.run(corpusRun)
        #expect(refused.status == 73, "\(refused.standardError)")
        #expect(
            refused.standardError.contains("is a `bench run` folder")
                && refused.standardError.contains("--replace"),
            "\(refused.standardError)"
        )
        #expect(
            try Data(contentsOf: out.appendingPathComponent("settings.json")) == settings,
            "the run's settings are kept"
        )
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("corpus.csv").path))

        let replaced = InProcessBench.run(corpusRun + ["--replace"])
        #expect(replaced.status == 0, "\(replaced.standardError)")
        // environment.txt is every measuring command's: the corpus wrote its own.
        for name in [
            "trials.csv", "timeline.csv", "summary.csv", "trials.json", "REPORT.md", "charts/data/article.dat",
        ] {
            #expect(
                !FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path),
                "\(name) of the run is removed"
            )
        }
        #expect(try RunSettings.read(from: out)?.command == "corpus")
    }

    /// A URL list that names one URL twice (credentials aside), or a port out of range, is refused
    /// up front, each line named.
    @Test func aURLListWithARepeatedURLOrABadPortIsRefused() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let list = folder.appendingPathComponent("urls.txt")
        try """
        http://127.0.0.1:9/a.jpg
        http://127.0.0.1:9/b.jpg
        http://127.0.0.1:9/a.jpg
        http://alice:secret@127.0.0.1:9/c.jpg
        http://bob:other@127.0.0.1:9/c.jpg
        http://127.0.0.1:99999/d.jpg

        """.write(to: list, atomically: true, encoding: .utf8)
        let output = InProcessBench.run(["corpus", list.path, "--out", folder.appendingPathComponent("out").path])
        #expect(output.status == 64, "\(output.standardError)")
        for problem in [
            "line 3: http://127.0.0.1:9/a.jpg is also on line 1",
            "line 5: http://***@127.0.0.1:9/c.jpg is also on line 4",
            "line 6: 'http://127.0.0.1:99999/d.jpg': port 99999 is out of range (1-65535)",
        ] {
            #expect(output.standardError.contains(problem), "\(output.standardError)")
        }
        #expect(!output.standardError.contains("secret"), "\(output.standardError)")
    }

    /// A URL's user and password never reach corpus.csv, the table or the messages.
    @Test func credentialsInAURLListAreRedacted() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let image = folder.appendingPathComponent("a.jpg")
        try RowKeyTests.fixture(image, width: 64, height: 48)
        let server = LoopbackServer()
        server.addResource(path: "/a.jpg", body: try Data(contentsOf: image), contentType: "image/jpeg")
        try server.start()
        defer { server.shutdown() }
        let list = folder.appendingPathComponent("urls.txt")
        let url = server.url(for: "/a.jpg")
        try "http://alice:s3cr3t@127.0.0.1:\(url.port ?? 0)/a.jpg\n".write(to: list, atomically: true, encoding: .utf8)
        let output = InProcessBench.run(Self.corpusRun(list, out: folder.appendingPathComponent("out").path))
        #expect(output.status == 0, "\(output.standardError)")
        let rows = try JobsTests.rows(folder.appendingPathComponent("out"), file: "corpus.csv")
        #expect(rows.map { $0["file"] ?? "" } == ["http://***@127.0.0.1:\(url.port ?? 0)/a.jpg"], "\(rows)")
        for name in ["corpus.csv", "corpus-summary.csv"] {
            let text = try String(contentsOf: folder.appendingPathComponent("out/\(name)"), encoding: .utf8)
            #expect(!text.contains("s3cr3t") && !text.contains("alice"), "\(name): \(text)")
        }
        #expect(
            !output.standardOutput.contains("s3cr3t") && !output.standardError.contains("s3cr3t"),
            "\(output.standardOutput)"
        )
    }
}

/// A file whose bytes change between its inspection and its measurement is not measured: each of
/// its runs is a `changed` row naming both sizes and digests, never one version's header beside
/// the other's payload.
@Suite struct ChangedFileTests {
    @Test func aFileRewrittenAfterItsInspectionIsAChangedRow() throws {
        let folder = TestFolder.temporary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = try CorpusResumeTests.corpus(images: 1, notes: 0, in: folder)
        let file = corpus.appendingPathComponent("img0.jpg")
        let inspected = CorpusImage.examine(CorpusEntry(name: "img0.jpg", location: .file(RawPath(file.path))))
        #expect(inspected.facts?.width == 64)
        let before = try Data(contentsOf: file)

        let bigger = folder.appendingPathComponent("bigger.jpg")
        try RowKeyTests.fixture(bigger, width: 96, height: 80)
        let after = try Data(contentsOf: bigger)
        try after.write(to: file)

        let plan = BenchmarkPlan(strategies: ["download"], renders: [.none], allocators: [.system], runs: 2)
        let rows = try CorpusRunner(images: [inspected], plan: plan, settings: TrialSettings())
            .run(onRow: { _ in }, shouldStop: { false })
        #expect(rows.count == 2)
        for row in rows {
            #expect(row.result?.status == .changed, "\(String(describing: row.result))")
            #expect(row.result?.peakRSSBytes == nil, "not measured")
            let error = row.result?.error ?? ""
            #expect(
                error.contains("\(before.count) bytes (FNV-1a-64 \(StableHash.digest(of: before))) then")
                    && error.contains("\(after.count) bytes (FNV-1a-64 \(StableHash.digest(of: after))) when served"),
                "\(error)"
            )
        }
    }
}

/// `bench merge` reads each shard with its file's key: a row twice in a shard, or one key in two
/// shards, is refused (65) before anything is written.
@Suite(.serialized) struct MergeKeyTests {
    @Test func mergeRefusesARowTwiceOrInTwoShards() throws {
        let source = try ShardMergeTests.makeCorpus()
        let work = TestFolder.temporary()
        defer {
            try? FileManager.default.removeItem(at: source)
            try? FileManager.default.removeItem(at: work)
        }
        let shards = [work.appendingPathComponent("s1"), work.appendingPathComponent("s2")]
        for (index, shard) in shards.enumerated() {
            let output = ShardMergeTests.corpus(source, shard: "\(index + 1)/2", out: shard)
            try #require([0, 3].contains(output.status), "\(output.standardError)")
        }
        let rows = shards.map { $0.appendingPathComponent("corpus.csv") }
        let original = try String(contentsOf: rows[1], encoding: .utf8)
        let merge = ["merge", shards[0].path, shards[1].path, "--out", work.appendingPathComponent("merged").path]

        try RowKeyTests.duplicateFirstRow(of: rows[1])
        let twice = InProcessBench.run(merge)
        #expect(twice.status == 65, "\(twice.standardError)")
        #expect(
            twice.standardError.contains(rows[1].path) && twice.standardError.contains("repeats the key of line 2"),
            "\(twice.standardError)"
        )

        // Shard 1's first row, as if shard 2 had measured it too (shard 2's run id).
        var table = try CSV.parse(original)
        let first = try CSV.parse(String(contentsOf: rows[0], encoding: .utf8))
        let idColumn = try #require(table[0].firstIndex(of: TrialsCSV.runIDColumn))
        var copied = first[1]
        copied[idColumn] = table[1][idColumn]
        table.append(copied)
        let text = table.map { CSV.line($0) }.joined(separator: "\n") + "\n"
        try text.write(to: rows[1], atomically: true, encoding: .utf8)
        let overlap = InProcessBench.run(merge)
        #expect(overlap.status == 65, "\(overlap.standardError)")
        #expect(
            overlap.standardError.contains("both hold \(copied[0])") && overlap.standardError.contains("overlap"),
            "\(overlap.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("merged/corpus.csv").path))
    }
}
