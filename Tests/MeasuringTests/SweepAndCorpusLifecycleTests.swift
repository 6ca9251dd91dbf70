import BenchCore
import Corpus
import Foundation
import Harness
import Imaging
import Measuring
import Report
import TestSupport
import Testing

/// Sweep and corpus measurements stopped and resumed below the command line, with no process: the
/// children's rows are recorded ones (`RecordedChildren`).
@Suite(.serialized) struct SweepAndCorpusLifecycleTests {
    typealias CountingLauncher = RunMeasurementLifecycleTests.CountingLauncher
    typealias StopAfter = RunMeasurementLifecycleTests.StopAfter

    let scratch = FileManager.default.temporaryDirectory
        .appendingPathComponent("measuring-\(getpid())-\(UUID().uuidString.prefix(8))")

    func sweep(out: URL, resuming: Bool, launcher: CountingLauncher, stopAfter: Int?) -> SweepRequest {
        var settings = TrialSettings()
        settings.fixtureCacheDirectory = scratch.appendingPathComponent("fixtures")
        let plan = BenchmarkPlan(strategies: ["data"], renders: [.none], allocators: [.system], runs: 2)
        var request = SweepRequest(
            plan: plan,
            sizesMB: [0.05, 0.1],
            settings: settings,
            output: MeasurementOutput(out: out.path, resuming: resuming)
        )
        request.launcher = launcher
        request.stop = StopAfter(launcher: launcher, after: stopAfter)
        return request
    }

    /// A stopped sweep keeps its rows (143); resumed, it measures only the missing (size, cell, run).
    @Test func aStoppedSweepResumesWithOnlyTheMissingTrials() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("sweep")
        let first = CountingLauncher()
        #expect(
            endStatus { try SweepMeasurement(sweep(out: out, resuming: false, launcher: first, stopAfter: 1)).run() }
                == 143
        )
        let kept = try SweepCSV.parse(String(contentsOf: out.appendingPathComponent("sweep.csv"), encoding: .utf8))
        #expect(kept.count == first.count)
        #expect((1...2).contains(kept.count))

        let second = CountingLauncher()
        #expect(
            endStatus { try SweepMeasurement(sweep(out: out, resuming: true, launcher: second, stopAfter: nil)).run() }
                == nil
        )
        #expect(second.count == 4 - kept.count)
        let all = try SweepCSV.parse(String(contentsOf: out.appendingPathComponent("sweep.csv"), encoding: .utf8))
        #expect(all.count == 4)
        #expect(Set(all.map { "\($0.step.targetBytes) \($0.result.cell) \($0.result.run)" }).count == 4)
        #expect(Self.describesTheMachine(out))
    }

    /// environment.txt, which bench writes into every measuring command's folder, names the machine and libraries.
    static func describesTheMachine(_ folder: URL) -> Bool {
        let text = (try? String(contentsOf: folder.appendingPathComponent("environment.txt"), encoding: .utf8)) ?? ""
        return text.hasPrefix("cpu:") && text.contains("\nlibjpeg-turbo:")
    }

    func corpus(
        _ images: URL,
        out: URL,
        resuming: Bool,
        launcher: CountingLauncher,
        stopAfter: Int?,
        shard: Shard? = nil
    ) throws -> CorpusRequest {
        var entries = try CorpusInput.entries(at: images.path)
        let selection = shard.map { CorpusShard.select(entries, shard: $0) }
        entries = selection?.entries ?? entries
        let plan = BenchmarkPlan(strategies: ["download"], renders: [.full], allocators: [.system], runs: 1)
        var request = CorpusRequest(
            entries: entries,
            shardSelection: selection,
            source: images.path,
            plan: plan,
            shard: shard,
            settings: TrialSettings(),
            output: MeasurementOutput(out: out.path, resuming: resuming)
        )
        request.launcher = launcher
        request.stop = StopAfter(launcher: launcher, after: stopAfter)
        return request
    }

    /// Three small images, one file that is not an image.
    func makeCorpus() throws -> URL {
        let images = scratch.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        for seed in 1...3 {
            let spec = FixtureSpec(width: 160 + 16 * seed, height: 120, quality: 85, seed: UInt64(seed))
            let file = try FixtureGenerator.cachedFixture(spec, in: scratch.appendingPathComponent("fixtures"))
            try FileManager.default.copyItem(at: file, to: images.appendingPathComponent("image-\(seed).jpg"))
        }
        try Data("not an image".utf8).write(to: images.appendingPathComponent("notes.txt"))
        return images
    }

    /// A stopped corpus keeps its rows (143); resumed, it measures only the images not yet rows, and
    /// ends with every file's row once: three measured, one not an image (status 3).
    @Test func aStoppedCorpusResumesWithOnlyTheMissingImages() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let images = try makeCorpus()
        let out = scratch.appendingPathComponent("corpus")
        let first = CountingLauncher()
        #expect(
            endStatus {
                try CorpusMeasurement(corpus(images, out: out, resuming: false, launcher: first, stopAfter: 1)).run()
            } == 143
        )
        #expect((1...2).contains(first.count))

        let second = CountingLauncher()
        #expect(
            endStatus {
                try CorpusMeasurement(corpus(images, out: out, resuming: true, launcher: second, stopAfter: nil)).run()
            } == 3
        )
        #expect(first.count + second.count == 3)
        let (rows, torn) = try CorpusCSV.parse(
            String(contentsOf: out.appendingPathComponent("corpus.csv"), encoding: .utf8)
        )
        #expect(!torn)
        #expect(rows.count == 4)
        #expect(rows.filter { $0.result != nil }.count == 3)
        #expect(Set(rows.map(\.key)).count == 4)
        #expect(Self.describesTheMachine(out))
    }

    /// A corpus shard plans its rows once every file was examined and records that it finished.
    @Test func aCorpusShardRecordsItsPlanAndItsEnd() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let images = try makeCorpus()
        let out = scratch.appendingPathComponent("corpus-shard")
        let shard = try #require(Shard("1/2"))
        let launcher = CountingLauncher()
        let request = try corpus(images, out: out, resuming: false, launcher: launcher, stopAfter: nil, shard: shard)
        _ = endStatus { try CorpusMeasurement(request).run() }
        let record = try ShardRecord.read(in: out)
        #expect(record.plannedRows == request.entries.count)
        #expect(record.completedRows == request.entries.count)
        #expect(record.ended == ShardRecord.finished)
    }
}
