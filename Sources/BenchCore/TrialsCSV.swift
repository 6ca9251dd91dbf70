import Foundation

/// `trials.csv`: one tidy row per run, units in the column names. Failed runs are rows too,
/// with their status and error and empty measurement cells.
package enum TrialsCSV {
    package static let fileName = "trials.csv"
    /// The columns, in order. The first fifteen are the stable contract (docs/OUTPUT.md lists them); the rest add detail.
    package static let columns: [(name: String, value: @Sendable (TrialResult) -> String)] = [
        ("strategy", { $0.strategy }),
        ("render", { $0.render.rawValue }),
        ("allocator", { $0.allocator.rawValue }),
        ("run", { String($0.run) }),
        ("pid", { String($0.pid) }),
        ("payload_bytes", { text($0.payloadBytes) }),
        ("baseline_rss_bytes", { text($0.baselineRSSBytes) }),
        ("peak_rss_bytes", { text($0.peakRSSBytes) }),
        ("peak_rss_delta_bytes", { text($0.peakRSSDeltaBytes) }),
        ("peak_allocated_bytes", { text($0.peakAllocatedBytes) }),
        ("peak_allocated_delta_bytes", { text($0.peakAllocatedDeltaBytes) }),
        ("final_rss_bytes", { text($0.finalRSSBytes) }),
        ("duration_s", { text($0.durationSeconds) }),
        ("status", { $0.status.rawValue }),
        ("error", { $0.error }),
        ("baseline_allocated_bytes", { text($0.baselineAllocatedBytes) }),
        ("final_allocated_bytes", { text($0.finalAllocatedBytes) }),
        ("sampled_peak_rss_bytes", { text($0.sampledPeakRSSBytes) }),
        ("hwm_peak_rss_bytes", { text($0.hwmPeakRSSBytes) }),
        ("fetch_s", { text($0.fetchSeconds) }),
        ("render_s", { text($0.renderSeconds) }),
        ("startup_s", { text($0.startupSeconds) }),
        ("warmup_s", { text($0.warmupSeconds) }),
        ("wall_s", { text($0.wallSeconds) }),
        ("image_width", { text($0.imageWidth) }),
        ("image_height", { text($0.imageHeight) }),
        ("samples", { text($0.samples) }),
        ("sampler_hz", { text($0.samplerHertz, digits: 0) }),
        ("max_gap_ms", { text($0.maxSampleGapMillis, digits: 3) }),
        ("sampler_cpu_s", { text($0.samplerCPUSeconds) }),
        ("sampler_realtime", { $0.samplerRealtime.map { $0 ? "1" : "0" } ?? "" }),
        ("baseline_heap_exact_bytes", { text($0.baselineHeapExactBytes) }),
        ("peak_heap_exact_bytes", { text($0.peakHeapExactBytes) }),
        ("peak_heap_exact_delta_bytes", { text($0.peakHeapExactDeltaBytes) }),
        ("warmed_up", { $0.warmedUp.map { $0 ? "1" : "0" } ?? "" }),
        ("peak_holder", { $0.peakHolder ?? "" }),
        ("attributed_bytes", { text($0.attributedBytes) }),
        ("settle_s", { text($0.settleSeconds) }),
        ("floor_bytes", { text($0.floorBytes) }),
    ]

    /// A row's key: its cell (strategy, render, allocator) and run; no two rows of a file share one
    /// (`RowKeyCheck`). The fixture, source and other settings are the run's, the same for every row.
    package static let keyColumns = ["strategy", "render", "allocator", "run"]

    /// The column naming the run a row belongs to: every file of one run carries the same id.
    package static let runIDColumn = "run_id"

    /// With `runID`, a last `run_id` column says which run wrote each row.
    package static func render(_ results: [TrialResult], runID: String? = nil) -> String {
        let suffix = runID.map { [$0] } ?? []
        var lines = [CSV.line(columns.map(\.name) + (runID == nil ? [] : [runIDColumn]))]
        lines += results.map { result in CSV.line(columns.map { $0.value(result) } + suffix) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func text(_ value: Int?) -> String { value.map(String.init) ?? "" }
    static func text(_ value: Double?, digits: Int = 6) -> String {
        value.map { String(format: "%.\(digits)f", $0) } ?? ""
    }
}

/// `timeline.csv`: every sample of every run, for the memory-over-time chart.
package enum TimelineCSV {
    package static let fileName = "timeline.csv"
    package static let header = [
        "strategy", "render", "allocator", "run", "pid", "t_s", "rss_bytes", "allocated_bytes",
        "file_bytes",
    ]
    /// The columns of files from before `file_bytes` (RSS's file-backed part) was recorded.
    package static let headerWithoutFile = Array(header.dropLast())

    /// With `runID`, a last `run_id` column as in trials.csv.
    package static func render(_ results: [TrialResult], runID: String? = nil) -> String {
        var text = CSV.line(header + (runID == nil ? [] : [TrialsCSV.runIDColumn])) + "\n"
        let suffix = runID.map { "," + CSV.line([$0]) } ?? ""
        for result in results {
            let prefix = CSV.line([
                result.strategy, result.render.rawValue, result.allocator.rawValue,
                String(result.run), String(result.pid),
            ])
            for point in result.timeline {
                let file = point.fileBytes.map(String.init) ?? ""
                text +=
                    "\(prefix),\(String(format: "%.6f", point.seconds)),\(point.residentBytes),\(point.allocatedBytes),"
                    + "\(file)\(suffix)\n"
            }
        }
        return text
    }
}

/// `trials.json`: the run's context and every row (without timelines), for tools and `bench compare`.
package struct JSONExport: Codable {
    package static let fileName = "trials.json"
    package var context: RunContext
    package var trials: [TrialResult]

    package init(context: RunContext, trials: [TrialResult]) {
        self.context = context
        self.trials = trials.map {
            var row = $0
            row.timeline = []
            row.peakBlocks = nil
            return row
        }
    }

    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }
}

/// What a reader needs to judge the numbers: where, when and how they were taken.
package struct RunContext: Codable, Sendable {
    package var date: Date
    package var host: String
    package var kernel: String
    package var cpuCount: Int
    package var command: String
    package var source: String
    package var payloadBytes: Int?
    package var runsPerCell: Int
    package var sampleIntervalMicros: Double
    /// The id in the run_id column of the run's CSVs (absent in files from older versions).
    package var runID: String?
    /// Trials the plan had, and trials recorded (fewer when the run was interrupted).
    package var plannedRuns: Int?
    package var completedRuns: Int?
    /// The signal that interrupted the run ("SIGINT", "SIGTERM"), if one did.
    package var interruptedBy: String?
    /// Children measured at once (--jobs); absent in files from older versions, which ran one at a time.
    package var jobs: Int?
    /// Allocator settings the children inherited ("GLIBC_TUNABLES=...", "MALLOC_ARENA_MAX=2"); absent when none.
    package var allocatorEnvironment: [String]?
    /// "i/n" when the run measured one shard of the matrix (`--shard`); absent otherwise.
    package var shard: String?
    /// The kernel's transparent huge page mode (`always`, `madvise`, `never`): under `always`, residency
    /// comes in 2 MiB pages. Absent in files from older versions and where the kernel has no THP.
    package var transparentHugePages: String?
    /// The binary that measured (`Provenance`), flat under shard.json's keys; all absent in files from
    /// older versions, which a reader calls unknown.
    package var build: String?
    package var commit: String?
    package var dirty: Bool?
    package var commitSource: String?
    package var toolchain: String?
    package var libraries: [String: String]?

    package init(command: String, source: String, payloadBytes: Int?, runsPerCell: Int, sampleIntervalNanos: UInt64) {
        var name = utsname()
        uname(&name)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        date = Date()
        host = ProcessInfo.processInfo.hostName
        kernel = "\(field(name.sysname)) \(field(name.release)) \(field(name.machine))"
        cpuCount = ProcessInfo.processInfo.activeProcessorCount
        self.command = command
        self.source = source
        self.payloadBytes = payloadBytes
        self.runsPerCell = runsPerCell
        sampleIntervalMicros = Double(sampleIntervalNanos) / 1000
        transparentHugePages = Self.transparentHugePageMode()
    }

    /// The recorded provenance; nil in a file from a version that recorded none.
    package var provenance: Provenance? {
        get {
            guard let build, let commit else { return nil }
            return Provenance(
                build: build,
                commit: commit,
                dirty: dirty,
                commitSource: commitSource ?? Provenance.unknown,
                toolchain: toolchain ?? Provenance.unknown,
                libraries: libraries ?? [:]
            )
        }
        set {
            build = newValue?.build
            commit = newValue?.commit
            dirty = newValue?.dirty
            commitSource = newValue?.commitSource
            toolchain = newValue?.toolchain
            libraries = newValue?.libraries
        }
    }

    /// `source` of a run: its URL, or the embedded server's fixture. One text for trials.json as a run
    /// writes it and as `bench merge` rebuilds it from shard.json.
    package static func source(url: String?, fixture: String) -> String {
        url ?? "embedded fixture \(fixture)"
    }

    /// The bracketed choice of /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never").
    package static func transparentHugePageMode() -> String? {
        guard let text = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8),
            let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]")
        else { return nil }
        return String(text[text.index(after: open)..<close])
    }
}
