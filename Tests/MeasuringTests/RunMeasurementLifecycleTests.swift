import BenchCore
import Foundation
import Harness
import Imaging
import Measuring
import Report
import Synchronization
import TestSupport
import Testing

/// A measurement's life driven below the command line, with no process: the children's rows are
/// recorded ones (`RecordedChildren`), through a launcher that counts them and asks for a stop after a
/// given number, as a signal would.
@Suite(.serialized) struct RunMeasurementLifecycleTests {
    /// Launches through the recorded children and counts the trials.
    final class CountingLauncher: TrialLauncher {
        let inner = RecordedChildren()
        let launched = Atomic<Int>(0)

        func launch(_ spec: TrialSpec) -> TrialResult {
            launched.add(1, ordering: .relaxed)
            return inner.launch(spec)
        }

        var count: Int { launched.load(ordering: .relaxed) }
    }

    /// A stop requested once `after` trials were launched, named as SIGTERM would be.
    struct StopAfter: StopRequest {
        let launcher: CountingLauncher
        let after: Int?
        var requested: Bool { after.map { launcher.count >= $0 } ?? false }
        var signalName: String? { requested ? "SIGTERM" : nil }
        var exitStatus: Int32 { 143 }
    }

    let scratch = FileManager.default.temporaryDirectory
        .appendingPathComponent("measuring-\(getpid())-\(UUID().uuidString.prefix(8))")

    func request(
        out: URL,
        resuming: Bool,
        shard: Shard? = nil,
        launcher: CountingLauncher,
        stopAfter: Int?
    ) -> RunRequest {
        var plan = BenchmarkPlan(strategies: ["data", "download"], renders: [.none], allocators: [.system], runs: 2)
        plan.shard = shard
        var settings = TrialSettings()
        settings.fixtureCacheDirectory = scratch.appendingPathComponent("fixtures")
        let fixture = FixtureSpec(width: 320, height: 240, quality: 85, seed: 7)
        var request = RunRequest(
            plan: plan,
            source: .embedded(fixture: fixture, bandwidthBytesPerSecond: nil),
            sourceAsGiven: SettingsRecord.RunSource(
                fixture: fixture.fileName,
                url: nil,
                warmupURL: nil,
                cold: false,
                bandwidthBytesPerSecond: nil
            ),
            settings: settings,
            exactHeap: true,
            measuredURL: nil,
            output: MeasurementOutput(out: out.path, resuming: resuming),
            launcher: launcher
        )
        request.stop = StopAfter(launcher: launcher, after: stopAfter)
        return request
    }

    func rows(in folder: URL) throws -> [TrialResult] {
        try TrialsCSV.parse(String(contentsOf: folder.appendingPathComponent("trials.csv"), encoding: .utf8))
    }

    func statusOfRun(_ request: RunRequest) -> Int32? {
        endStatus { try RunMeasurement(request).run() }
    }

    /// A stopped run keeps every row it measured and ends with 128 + the signal; resumed, it measures
    /// only the missing trials and ends complete, each key once.
    @Test func aStoppedRunResumesWithOnlyTheMissingTrials() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("run")
        let first = CountingLauncher()
        #expect(statusOfRun(request(out: out, resuming: false, launcher: first, stopAfter: 1)) == 143)
        let kept = try rows(in: out)
        #expect(kept.count == first.count)
        #expect((1...2).contains(kept.count))
        let context = try JSONDecoder().decode(
            TrialsContextProbe.self,
            from: Data(contentsOf: out.appendingPathComponent("trials.json"))
        )
        #expect(context.context.interruptedBy == "SIGTERM")

        let second = CountingLauncher()
        #expect(statusOfRun(request(out: out, resuming: true, launcher: second, stopAfter: nil)) == nil)
        #expect(second.count == 4 - kept.count)
        let all = try rows(in: out)
        #expect(all.count == 4)
        #expect(Set(all.map { "\($0.cell) \($0.run)" }).count == 4)
        #expect(all.allSatisfy { $0.isSuccess })
    }

    /// A shard records its plan before the first trial and how it ended: stopped, then finished on resume.
    @Test func aShardRecordsItsPlanAndItsEnd() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("shard")
        // The shard of the two cells that holds at least one: a matrix splits by each cell's name.
        let shards = try [Shard("1/2"), Shard("2/2")].map { try #require($0) }
        let planned = shards.map { shard in
            request(out: out, resuming: false, shard: shard, launcher: CountingLauncher(), stopAfter: nil).plan
                .schedule().count
        }
        #expect(planned.reduce(0, +) == 4)
        let index = planned[0] > 0 ? 0 : 1
        let shard = shards[index]
        let rowsOfShard = planned[index]
        let first = CountingLauncher()
        #expect(statusOfRun(request(out: out, resuming: false, shard: shard, launcher: first, stopAfter: 1)) == 143)
        let stopped = try ShardRecord.read(in: out)
        #expect(stopped.plannedRows == rowsOfShard)
        #expect(stopped.ended == "SIGTERM")
        #expect(stopped.completedRows == first.count)

        let second = CountingLauncher()
        #expect(statusOfRun(request(out: out, resuming: true, shard: shard, launcher: second, stopAfter: nil)) == nil)
        let finished = try ShardRecord.read(in: out)
        #expect(finished.ended == ShardRecord.finished)
        #expect(finished.completedRows == rowsOfShard)
        #expect(try rows(in: out).count == rowsOfShard)
    }

    /// A new run refuses a folder that holds an earlier run's rows (73) before any trial.
    @Test func aFolderWithRowsIsRefusedBeforeTheFirstTrial() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("taken")
        let first = CountingLauncher()
        #expect(statusOfRun(request(out: out, resuming: false, launcher: first, stopAfter: 1)) == 143)
        let second = CountingLauncher()
        do {
            try RunMeasurement(request(out: out, resuming: false, launcher: second, stopAfter: nil)).run()
            Issue.record("a folder with rows was written over")
        } catch let failure as BenchFailure {
            #expect(failure.code == .cannotCreateOutput)
        }
        #expect(second.count == 0)
    }
}

/// The part of trials.json these tests read.
struct TrialsContextProbe: Decodable {
    struct Context: Decodable { var interruptedBy: String? }
    var context: Context
}

/// How a measurement ended: nil when every trial succeeded, else its `MeasurementEnd` status.
func endStatus(_ measure: () throws -> Void) -> Int32? {
    do {
        try measure()
        return nil
    } catch let end as MeasurementEnd {
        return end.status
    } catch {
        Issue.record("unexpected error: \(error)")
        return -1
    }
}
