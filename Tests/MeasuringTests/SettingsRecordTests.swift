import BenchCore
import Harness
import Measuring
import Testing

/// settings.json, shard.json and trials.json's source are written from one record, each with the keys
/// and texts folders already written have: `--resume` and `bench merge` compare them key by key, so a
/// renamed key or a reworded text would refuse every folder of an earlier bench.
@Suite struct SettingsRecordTests {
    static let plan = BenchmarkPlan(
        strategies: ["data", "download"],
        renders: [.none, .full],
        allocators: [.system],
        runs: 3
    )
    static let fixture = "fixture-64x48-q90-baseline-s1-e46e0795.jpg"
    static let trialKeys = [
        "--max-pixel", "--max-image-pixels", "--sample-interval-us", "--timeout", "--holder-threshold", "BENCH_SETTLE",
    ]
    static let planKeys = ["--strategy", "--render", "--allocator", "--runs"]

    static func run(_ source: SettingsRecord.RunSource, shard: Shard? = nil, exactHeap: Bool = true) -> SettingsRecord {
        SettingsRecord(source: .run(source), plan: plan, trial: TrialSettings(), shard: shard, exactHeap: exactHeap)
    }

    static func fixtureSource(cold: Bool = false, bandwidth: Int? = nil) -> SettingsRecord.RunSource {
        .init(fixture: fixture, url: nil, warmupURL: nil, cold: cold, bandwidthBytesPerSecond: bandwidth)
    }

    @Test func runRecordsItsSourceThePlanTheExactHeapTheShardAndTheTrialSettings() {
        let record = Self.run(Self.fixtureSource(cold: true, bandwidth: 10_000_000), shard: Shard("1/2"))
        #expect(
            record.resumeSettings.map(\.0)
                == ["source"] + Self.planKeys + ["--no-exact-heap", "--shard"] + Self.trialKeys
        )
        let values = Dictionary(uniqueKeysWithValues: record.resumeSettings)
        #expect(values["source"] == "embedded fixture \(Self.fixture) cold at 10000000 bytes/s")
        #expect(values["--strategy"] == "data,download")
        #expect(values["--render"] == "none,full")
        #expect(values["--allocator"] == "system")
        #expect(values["--runs"] == "3")
        #expect(values["--no-exact-heap"] == "false")
        #expect(values["--shard"] == "1/2")
        #expect(values["--max-pixel"] == "1024")
        #expect(values["--sample-interval-us"] == "500")
        #expect(values["--timeout"] == "60.0")
        #expect(values["--holder-threshold"] == "65536")
        #expect(values["BENCH_SETTLE"] == (TrialSettings.environmentSettleIsFixed ? "fixed" : "rule"))
        #expect(Dictionary(uniqueKeysWithValues: Self.run(Self.fixtureSource()).resumeSettings)["--shard"] == "none")
        #expect(record.sourceDescription == "embedded fixture \(Self.fixture)")
    }

    @Test func runWithAURLRecordsItAndItsWarmUp() {
        let url = "http://127.0.0.1:8080/photo.jpg"
        func source(_ record: SettingsRecord) -> String? {
            Dictionary(uniqueKeysWithValues: record.resumeSettings)["source"]
        }
        let origin = Self.run(
            .init(fixture: Self.fixture, url: url, warmupURL: nil, cold: false, bandwidthBytesPerSecond: nil)
        )
        #expect(source(origin) == "\(url) (warm-up: the origin)")
        let given = Self.run(
            .init(
                fixture: Self.fixture,
                url: url,
                warmupURL: "http://127.0.0.1:8080/",
                cold: false,
                bandwidthBytesPerSecond: nil
            )
        )
        #expect(source(given) == "\(url) (warm-up: http://127.0.0.1:8080/)")
        let cold = Self.run(
            .init(fixture: Self.fixture, url: url, warmupURL: nil, cold: true, bandwidthBytesPerSecond: nil)
        )
        #expect(source(cold) == "\(url) (warm-up: none)")
        #expect(origin.sourceDescription == url)
    }

    @Test func aRunsShardRecordsEveryOptionTheFiguresDependOn() {
        let record = Self.run(Self.fixtureSource(cold: true, bandwidth: 10_000_000), exactHeap: false)
        #expect(
            record.mergeSettings.keys.sorted()
                == (Self.planKeys + Self.trialKeys + [
                    "fixture", "--url", "--warmup-url", "--cold", "--bandwidth", "--no-exact-heap",
                ])
                .sorted()
        )
        #expect(record.mergeSettings["fixture"] == Self.fixture)
        #expect(record.mergeSettings["--url"] == "")
        #expect(record.mergeSettings["--warmup-url"] == "")
        #expect(record.mergeSettings["--cold"] == "true")
        #expect(record.mergeSettings["--bandwidth"] == "10000000")
        #expect(record.mergeSettings["--no-exact-heap"] == "true")
        #expect(record.mergeSettings["--runs"] == "3")
    }

    @Test func corpusRecordsItsPathAndTheShardOnlyWhenGiven() {
        let whole = SettingsRecord(
            source: .corpus(path: "/photos"),
            plan: Self.plan,
            trial: TrialSettings(),
            shard: nil
        )
        #expect(whole.resumeSettings.map(\.0) == ["source"] + Self.planKeys + Self.trialKeys)
        #expect(whole.resumeSettings.first?.1 == "/photos")
        let shard = SettingsRecord(
            source: .corpus(path: "/photos"),
            plan: Self.plan,
            trial: TrialSettings(),
            shard: Shard("2/3")
        )
        #expect(shard.resumeSettings.map(\.0) == ["source"] + Self.planKeys + Self.trialKeys + ["--shard"])
        #expect(shard.resumeSettings.last?.1 == "2/3")
        // A corpus's shards are checked against the whole corpus by its digest, not its path.
        #expect(shard.mergeSettings.keys.sorted() == (Self.planKeys + Self.trialKeys).sorted())
        #expect(shard.sourceDescription == nil)
    }

    @Test func sweepRecordsItsSizesInOrder() {
        let record = SettingsRecord(
            source: .sweep(sizesMB: [2, 0.5]),
            plan: Self.plan,
            trial: TrialSettings(),
            shard: nil
        )
        #expect(record.resumeSettings.map(\.0) == Self.planKeys + ["--sizes"] + Self.trialKeys)
        #expect(Dictionary(uniqueKeysWithValues: record.resumeSettings)["--sizes"] == "0.5,2.0")
    }
}
