import BenchCore
import Foundation
import Harness
import Imaging
import Report
import TestSupport
import Testing

/// The resident memory at the RSS peak, broken into categories, in real children: a known-answer
/// child checked against the kernel's own accounts read at the same moment, and the article's data
/// task, whose body buffer is allocated at 16.8 MB and filled only as far as the 13.1 MB body.
@Suite(.serialized) struct ResidencyTests {
    /// One known-answer child per allocator, shared by the tests that read its report.
    static let knownAnswers = Dictionary(
        uniqueKeysWithValues: Allocator.allCases.map { allocator in
            (allocator, Result { try runKnownAnswer(allocator) })
        }
    )

    static func knownAnswer(_ allocator: Allocator) throws -> ResidencyKnownAnswer.Report {
        try #require(knownAnswers[allocator]).get()
    }

    static func runKnownAnswer(_ allocator: Allocator) throws -> ResidencyKnownAnswer.Report {
        var environment: [String: String] = [:]
        if allocator == .jemalloc {
            let library = JemallocLibrary.locate()
            #expect(library != nil, "no libjemalloc.so.2 to preload")
            environment["LD_PRELOAD"] = library ?? ""
        }
        let output = try BenchProcess.run(
            ["_residency-check", "--allocator", allocator.rawValue],
            extraEnvironment: environment,
            timeout: 60
        )
        #expect(output.status == 0, "\(output.standardError)")
        return try JSONDecoder().decode(ResidencyKnownAnswer.Report.self, from: Data(output.standardOutput.utf8))
    }

    static func bytes(_ report: ResidencyKnownAnswer.Report, _ category: ResidencyCategory) -> Int {
        report.rows.first { $0.category == category }?.bytes ?? Int.min
    }

    /// Each category meets what the child did, within a few pages, and the anonymous and total RSS
    /// deltas meet /proc/self/smaps_rollup's; what no category explains is within 2% of the RSS delta.
    @Test(arguments: Allocator.allCases) func knownAnswerChildMeetsTheKernelsAccounts(_ allocator: Allocator) throws {
        let report = try Self.knownAnswer(allocator)
        let slack = 64 << 10
        let rows = report.rows.map { "\($0.category.rawValue) \($0.bytes)" }.joined(separator: ", ")
        #expect(report.rows.reduce(0) { $0 + $1.bytes } == report.rssDeltaBytes)
        #expect(
            abs(report.smapsRSSDeltaBytes - report.rssDeltaBytes) <= 2 * slack,
            "smaps_rollup Rss delta \(report.smapsRSSDeltaBytes), statm's \(report.rssDeltaBytes)"
        )
        #expect(
            abs(report.smapsAnonymousDeltaBytes - report.anonymousDeltaBytes) <= 2 * slack,
            "smaps_rollup Anonymous delta \(report.smapsAnonymousDeltaBytes), statm's \(report.anonymousDeltaBytes)"
        )
        // The large blocks: as pagemap says, and the touched share of each (plus the edge pages).
        let holders = Self.bytes(report, .heapHolders)
        #expect(
            abs(holders - report.pagemapBlockResidentBytes) <= 4096,
            "holders \(holders), pagemap \(report.pagemapBlockResidentBytes)"
        )
        #expect(holders >= report.touchedBlockBytes && holders <= report.touchedBlockBytes + slack, "\(rows)")
        let file = Self.bytes(report, .fileBacked)
        #expect(file >= report.touchedFileBytes && file <= report.touchedFileBytes + 2 * slack, "\(rows)")
        let other = Self.bytes(report, .otherAnonymous)
        #expect(other >= report.touchedOwnMappingBytes && other <= report.touchedOwnMappingBytes + slack, "\(rows)")
        let stacks = Self.bytes(report, .threadStacks)
        #expect(stacks >= report.touchedStackBytes && stacks <= report.touchedStackBytes + 3 * slack, "\(rows)")
        let kept = Self.bytes(report, .allocatorFree)
        #expect(kept >= report.freedBytes - slack && kept <= report.freedBytes + 16 * slack, "\(rows)")
        let unattributed = Self.bytes(report, .unattributed)
        #expect(abs(unattributed) <= max(report.rssDeltaBytes / 50, 256 << 10), "\(rows)")
        // A snapshot reads the live heap and the recorded blocks together: a recorded block that
        // another thread allocates and frees meanwhile moves both or neither.
        #expect(
            report.churnSmallHeapRangeBytes < ResidencyKnownAnswer.churnBlockBytes / 2,
            "small heap blocks spread \(report.churnSmallHeapRangeBytes) bytes"
        )
        // The untouched spans made jemalloc grow its page map (at most two leaves a span), so the
        // checks above hold with leaves allocated and not resident.
        let leaf = ResidencyKnownAnswer.pageMapLeafBytes
        let leaves = allocator == .jemalloc ? leaf...(2 * ResidencyKnownAnswer.maximumSpans * leaf) : 0...0
        #expect(leaves.contains(report.pageMapLeafBytes), "page map leaves \(report.pageMapLeafBytes)")
    }

    /// The measurement's own first use of the allocator (its sampler thread's, its first snapshot's)
    /// happens before the window opens: a window with no work in it rises by less than 256 KiB.
    @Test(arguments: Allocator.allCases) func anEmptyWindowHoldsNoneOfTheMeasurementsOwnMemory(
        _ allocator: Allocator
    ) throws {
        let rise = try Self.knownAnswer(allocator).emptyWindowRiseBytes
        #expect(rise < 256 << 10, "an empty window rose \(rise) bytes")
    }

    static let dataTask = Result {
        let plan = BenchmarkPlan(strategies: ["data"], renders: [.none], allocators: [.system], runs: 2)
        let runner = BenchmarkRunner(
            plan: plan,
            source: .embedded(fixture: .article, bandwidthBytesPerSecond: nil),
            launcher: ChildProcessLauncher(executable: BenchProcess.executable)
        )
        return try runner.run()
    }

    /// data+none [system]: FoundationNetworking's body buffer is allocated at 16 MiB and only the
    /// body's bytes of it are ever written: resident within 5% of the payload, at the RSS peak.
    @Test func dataTasksBodyBufferIsResidentOnlyAsFarAsTheBody() throws {
        for row in try Self.dataTask.get() {
            #expect(row.isSuccess, "\(row.status): \(row.error)")
            let payload = Double(try #require(row.payloadBytes))
            let holders = try #require(row.holders, "run \(row.run) has no holders")
            let buffer = try #require(
                holders.first { $0.module == "libFoundationNetworking.so" && $0.bytes >= 16_000_000 },
                "no 16 MiB buffer in \(holders.map { "\($0.bytes) \($0.allocatedBy)" })"
            )
            let resident = Double(try #require(buffer.residentBytes))
            #expect(buffer.bytes >= 16_700_000 && buffer.bytes <= 16_900_000)
            #expect(abs(resident / payload - 1) <= 0.05, "resident \(resident) of \(buffer.bytes), payload \(payload)")
        }
    }

    /// The data task frees its 16 MiB buffer inside the window, a moment a snapshot is taken on the
    /// freeing thread: the time that takes is recorded apart, and is part of the window's duration.
    @Test func dataTasksInWindowSnapshotTimeIsPartOfItsDuration() throws {
        for row in try Self.dataTask.get() where row.isSuccess {
            let inWindow = try #require(row.residencyInWindowSeconds, "run \(row.run)")
            let duration = try #require(row.durationSeconds)
            #expect(inWindow > 0 && inWindow < duration, "\(inWindow) s of \(duration) s")
        }
    }

    /// `--residency off`, or its alias `BENCH_RESIDENCY=off` (what the cost study measures against):
    /// the children take no snapshots, so the runs have no residency rows and no snapshot time, and
    /// settings.json records it, so that a resume with the snapshots on is refused rather than mixing the two.
    @Test(arguments: [(["--residency", "off"], [:]), ([], [TrialSpec.residencyEnvironmentVariable: "off"])])
    func residencyOffTakesNoSnapshotsAndIsRecordedForResume(option: [String], environment: [String: String]) throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = [
            "run", "--strategy", "data", "--render", "none", "--allocator", "system", "--runs", "2", "--out",
            folder.path,
        ]
        let off = try BenchProcess.run(arguments + option, extraEnvironment: environment)
        #expect(off.status == 0, "\(off.standardError)")
        let rows = try JSONDecoder.trials.decode(
            JSONExport.self,
            from: Data(contentsOf: folder.appendingPathComponent(JSONExport.fileName))
        ).trials
        #expect(rows.count == 2 && rows.allSatisfy(\.isSuccess))
        #expect(rows.allSatisfy { $0.residency == nil && $0.residencySnapshots == nil && $0.residencySeconds == nil })
        #expect(rows.allSatisfy { $0.peakHeapExactBytes != nil }, "the exact heap is still counted")
        let residencyCSV = try String(contentsOf: folder.appendingPathComponent(ResidencyCSV.fileName), encoding: .utf8)
        #expect(residencyCSV.split(separator: "\n").count == 1, "header only: \(residencyCSV)")

        let on = try BenchProcess.run(arguments + ["--resume"])
        #expect(on.status == 64, "\(on.standardError)")
        #expect(
            on.standardError.contains("\(TrialSpec.residencyEnvironmentVariable): off then, (not set) now"),
            "\(on.standardError)"
        )
    }

    /// A setting in bench's environment with a value it does not know is refused (64), naming the
    /// valid ones, before the output folder is made: not taken silently as the default.
    @Test(arguments: [
        (TrialSpec.residencyEnvironmentVariable, "0", "valid: on, off"),
        (TrialSpec.settleEnvironmentVariable, "Fixed", "valid: rule, fixed"),
    ])
    func anUnknownEnvironmentSettingIsRefused(variable: String, value: String, valid: String) throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("run")
        let refused = try BenchProcess.run(
            ["run", "--strategy", "download", "--render", "none", "--runs", "1", "--out", out.path],
            extraEnvironment: [variable: value]
        )
        #expect(refused.status == 64, "\(refused.standardError)")
        #expect(refused.standardError.contains("\(variable)='\(value)'"), "\(refused.standardError)")
        #expect(refused.standardError.contains(valid), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// Each run's rows: both moments, every category once; the RSS peak's snapshot within 2% of the
    /// peak RSS delta (or 256 KiB) and so is what no category explains.
    @Test func dataTasksBreakdownAddsUpAndIsNearThePeak() throws {
        try Self.expectBreakdownsNearThePeak(Self.dataTask.get())
    }

    /// contents-of+thumbnail [system]: the loading thread frees its 16 MiB buffer (a snapshot on that
    /// thread) while the main thread fills the body's and the decoder's pages. What that snapshot
    /// reads while pages are filled stays within 2% of the peak RSS delta (or 256 KiB) too.
    @Test func aSnapshotBesideAThreadFillingPagesAddsUpToo() throws {
        let plan = BenchmarkPlan(strategies: ["contents-of"], renders: [.thumbnail], allocators: [.system], runs: 6)
        let runner = BenchmarkRunner(
            plan: plan,
            source: .embedded(fixture: .article, bandwidthBytesPerSecond: nil),
            launcher: ChildProcessLauncher(executable: BenchProcess.executable)
        )
        let rows = try runner.run()
        let failed = rows.filter { !$0.isSuccess }.map { "\($0.status): \($0.error)" }
        #expect(rows.count == 6 && failed.isEmpty, "\(failed)")
        try Self.expectBreakdownsNearThePeak(rows)
    }

    /// download+stream [system] of an interlaced PNG: at the end of the decode, the decoder lets go
    /// of its pass buffers, none of them 1 MiB, and glibc gives about 0.5 MB of pages back at some
    /// free among them. The snapshot taken as the heap falls is still within 2% of the peak RSS
    /// delta (or 256 KiB), and so is what no category explains.
    @Test func aDecoderLettingGoOfSmallBuffersIsSeenBeforeRSSFalls() throws {
        let plan = BenchmarkPlan(strategies: ["download"], renders: [.stream], allocators: [.system], runs: 2)
        let runner = BenchmarkRunner(
            plan: plan,
            source: .embedded(fixture: FixtureSpec(encoding: .pngRGBInterlaced), bandwidthBytesPerSecond: nil),
            launcher: ChildProcessLauncher(executable: BenchProcess.executable)
        )
        let rows = try runner.run()
        let failed = rows.filter { !$0.isSuccess }.map { "\($0.status): \($0.error)" }
        #expect(rows.count == 2 && failed.isEmpty, "\(failed)")
        try Self.expectBreakdownsNearThePeak(rows)
    }

    static func expectBreakdownsNearThePeak(_ rows: [TrialResult]) throws {
        for row in rows where row.isSuccess {
            let peakDelta = try #require(row.peakRSSDeltaBytes)
            let tolerance = max(peakDelta / 50, 256 << 10)
            for moment in ResidencyMoment.allCases {
                #expect(row.residency(at: moment).map(\.category) == ResidencyCategory.allCases)
            }
            let peak = row.residency(at: .rssPeak)
            let snapshot = peak.reduce(0) { $0 + $1.bytes }
            #expect(
                snapshot <= peakDelta && peakDelta - snapshot <= tolerance,
                "snapshot \(snapshot), peak \(peakDelta)"
            )
            let unattributed = try #require(peak.last?.bytes)
            #expect(abs(unattributed) <= tolerance, "\(peak.map { "\($0.category.rawValue) \($0.bytes)" })")
        }
    }
}

/// A run's folder and summary carry the breakdown: residency.csv, the file-backed part of every
/// timeline sample, the kernel's huge page mode, and each cell's rows printed under its holders.
@Suite(.serialized) struct ResidencyRunFolderTests {
    @Test func aRunWritesAndPrintsEachCellsBreakdown() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run([
            "run", "--strategy", "data", "--render", "full", "--allocator", "system",
            "--runs", "2", "--width", "320", "--height", "240", "--out", folder.path,
        ])
        #expect(output.status == 0, "\(output.standardError)")
        let rows = try JobsTests.rows(folder, file: "residency.csv")
        #expect(rows.count == 2 * ResidencyMoment.allCases.count * ResidencyCategory.allCases.count)
        for row in rows {
            let category = try #require(ResidencyCategory(rawValue: row["category"] ?? ""), "\(row)")
            #expect(row["how"] == category.how(under: .system, exactHeap: true).rawValue)
        }
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        let title = try #require(lines.firstIndex { $0.hasPrefix("Resident memory") }, "\(output.standardOutput)")
        #expect(lines.firstIndex { $0.hasPrefix("Who holds the peak") }.map { $0 < title } == true)
        #expect(lines[title + 1].hasPrefix("data+full [system] run "), "\(lines[title + 1])")
        let printed: [String] = lines[(title + 2)...].prefix(ResidencyCategory.allCases.count).map { line in
            let words = line.split(separator: " ").map(String.init)
            return words.count > 4 ? words[4] : line
        }
        let categories: [String] = ResidencyCategory.allCases.map(\.rawValue)
        #expect(printed == categories, "\(printed)")

        let samples = try JobsTests.rows(folder, file: "timeline.csv")
        #expect(!samples.isEmpty)
        for sample in samples {
            let file = try #require(sample["file_bytes"].flatMap { Int($0) }, "\(sample)")
            let rss = try #require(sample["rss_bytes"].flatMap { Int($0) })
            #expect(file > 0 && file < rss, "\(sample)")
        }
        let environment = try String(contentsOf: folder.appendingPathComponent("environment.txt"), encoding: .utf8)
        let mode = RunContext.transparentHugePageMode()
        #expect(environment.contains("transparent huge pages \(mode ?? "unknown")"), "\(environment)")
        let json = try ShardCompletenessTests.json(folder.appendingPathComponent("trials.json"))
        #expect((json["context"] as? [String: Any])?["transparentHugePages"] as? String == mode)
    }
}
