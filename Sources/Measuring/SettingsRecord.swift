import BenchCore
import Foundation
import Harness

/// The one record of what a measurement's rows depend on. settings.json (what `--resume` checks),
/// shard.json's settings (what `bench merge` checks) and trials.json's source are each written from
/// it. Each file keeps the keys and texts it has always had: folders written by an earlier bench are
/// compared key by key, and a renamed key would refuse to resume or merge them.
package struct SettingsRecord: Sendable {
    /// What `bench run` measures: the embedded server's fixture or a URL, as the options gave it.
    package struct RunSource: Sendable {
        /// The fixture's file name (with --url, the default fixture's: shard.json has always named it).
        package var fixture: String
        package var url: String?
        /// --warmup-url; nil warms up on the URL's origin (or not at all when cold).
        package var warmupURL: String?
        package var cold: Bool
        package var bandwidthBytesPerSecond: Int?

        package init(fixture: String, url: String?, warmupURL: String?, cold: Bool, bandwidthBytesPerSecond: Int?) {
            self.fixture = fixture
            self.url = url
            self.warmupURL = warmupURL
            self.cold = cold
            self.bandwidthBytesPerSecond = bandwidthBytesPerSecond
        }
    }

    package enum Source: Sendable {
        case run(RunSource)
        /// A corpus folder or URL list, its path resolved.
        case corpus(path: String)
        /// The sweep's generated fixtures, by size in MB.
        case sweep(sizesMB: [Double])
    }

    package var source: Source
    package var plan: BenchmarkPlan
    package var trial: TrialSettings
    package var shard: Shard?
    /// `bench run --no-exact-heap` turns it off; recorded by run only.
    package var exactHeap: Bool

    package init(source: Source, plan: BenchmarkPlan, trial: TrialSettings, shard: Shard?, exactHeap: Bool = true) {
        self.source = source
        self.plan = plan
        self.trial = trial
        self.shard = shard
        self.exactHeap = exactHeap
    }

    /// settings.json's settings, in their order.
    package var resumeSettings: [(String, String)] {
        switch source {
        case .run(let run):
            return [("source", Self.settingsText(run))] + planSettings
                + [("--no-exact-heap", String(!exactHeap)), ("--shard", shard?.description ?? "none")]
                + trialSettings
        case .corpus(let path):
            // --shard only when given, so that folders recorded without it resume as before: another
            // shard's files resumed into this folder would be merged twice.
            return [("source", path)] + planSettings + trialSettings
                + (shard.map { [("--shard", $0.description)] } ?? [])
        case .sweep(let sizesMB):
            return planSettings + [("--sizes", sizesMB.sorted().map { String($0) }.joined(separator: ","))]
                + trialSettings
        }
    }

    /// shard.json's settings: the options that change what a trial measures, by their names. Shards
    /// merged must agree on all, the settle's mode included. --jobs is not one (peaks do not depend on
    /// it, and machines differ in cores).
    package var mergeSettings: [String: String] {
        var settings = Dictionary(planSettings + trialSettings, uniquingKeysWith: { first, _ in first })
        if case .run(let run) = source {
            settings["fixture"] = run.fixture
            settings["--url"] = run.url ?? ""
            settings["--warmup-url"] = run.warmupURL ?? ""
            settings["--cold"] = String(run.cold)
            settings["--bandwidth"] = run.bandwidthBytesPerSecond.map { String($0) } ?? ""
            settings["--no-exact-heap"] = String(!exactHeap)
        }
        return settings
    }

    /// trials.json's `source`, which only `bench run` writes: the image measured.
    package var sourceDescription: String? {
        guard case .run(let run) = source else { return nil }
        return RunContext.source(url: run.url, fixture: run.fixture)
    }

    /// The plan's options as given, in the order every command records them.
    private var planSettings: [(String, String)] {
        [
            ("--strategy", plan.strategies.joined(separator: ",")),
            ("--render", plan.renders.map(\.rawValue).joined(separator: ",")),
            ("--allocator", plan.allocators.map(\.rawValue).joined(separator: ",")),
            ("--runs", String(plan.runs)),
        ]
    }

    /// The per-trial settings every measuring command records.
    private var trialSettings: [(String, String)] {
        [
            ("--max-pixel", String(trial.maxPixel)),
            ("--max-image-pixels", String(trial.maxImagePixels)),
            ("--sample-interval-us", String(trial.sampleIntervalNanos / 1000)),
            ("--timeout", String(trial.timeoutSeconds)),
            ("--holder-threshold", String(trial.holderThresholdBytes)),
            // The settle changes the final readings: a resume or a merge must not mix the rule and the pause.
            (TrialSpec.settleEnvironmentVariable, (trial.settleIsFixed ? TrialSettings.Settle.fixed : .rule).rawValue),
        ]
            // Recorded only when off, so that folders recorded before it existed resume as before.
            + (trial.residencyIsOff
                ? [(TrialSpec.residencyEnvironmentVariable, TrialSettings.Residency.off.rawValue)] : [])
    }

    /// settings.json's `source` of a run: the URL and its warm-up, or the fixture and how it is served.
    private static func settingsText(_ run: RunSource) -> String {
        if let url = run.url {
            return "\(url) (warm-up: \(run.cold ? "none" : run.warmupURL ?? "the origin"))"
        }
        return "embedded fixture \(run.fixture)\(run.cold ? " cold" : "")"
            + (run.bandwidthBytesPerSecond.map { " at \($0) bytes/s" } ?? "")
    }
}
