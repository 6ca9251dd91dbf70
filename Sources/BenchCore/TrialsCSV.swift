import Foundation

/// `trials.csv`: one tidy row per run, units in the column names. Failed runs are rows too,
/// with their status and error and empty measurement cells.
package enum TrialsCSV {
    package static let fileName = "trials.csv"
    /// The columns, in order: each figure of a trial is declared here once, with how it is written and
    /// read back. The first fifteen are the stable contract; the rest add detail. Adding a figure is a
    /// stored property of `TrialResult`, its line here, and the code in the child that measures it.
    package static let columns: [TrialColumn] = [
        .key("strategy", "the fetch strategy (`bench list`)") { $0.strategy },
        .key("render", "the renderer: none, full, thumbnail, stream or a user's") { $0.render.rawValue },
        .key("allocator", "system (glibc) or jemalloc") { $0.allocator.rawValue },
        .key("run", "the run's number within its cell, from 1", unit: .count) { String($0.run) },
        .key("pid", "the child's process id", unit: .count) { String($0.pid) },
        .integer("payload_bytes", \.payloadBytes, .bytes, .neither, "the bytes of the image fetched"),
        .integer(
            "baseline_rss_bytes",
            \.baselineRSSBytes,
            .bytes,
            .neither,
            "RSS as the window opened, after the warm-up"
        ),
        .integer(
            "peak_rss_bytes",
            \.peakRSSBytes,
            .bytes,
            .lowerIsBetter,
            "the largest RSS of the window: sampled, VmHWM or a residency snapshot's"
        ),
        .derived("peak_rss_delta_bytes", .bytes, .lowerIsBetter, "peak_rss_bytes less baseline_rss_bytes") {
            text($0.peakRSSDeltaBytes)
        },
        .integer(
            "peak_allocated_bytes",
            \.peakAllocatedBytes,
            .bytes,
            .lowerIsBetter,
            "the allocator's live bytes at their highest sample (mallinfo2 or jemalloc's stats)"
        ),
        .derived(
            "peak_allocated_delta_bytes",
            .bytes,
            .lowerIsBetter,
            "peak_allocated_bytes less baseline_allocated_bytes"
        ) { text($0.peakAllocatedDeltaBytes) },
        .integer(
            "final_rss_bytes",
            \.finalRSSBytes,
            .bytes,
            .lowerIsBetter,
            "RSS at the window's end, after the settle"
        ),
        .number("duration_s", \.durationSeconds, .lowerIsBetter, "the measured window: fetch plus render"),
        .key("status", "ok, or how the run failed (fetch_error, decode_error, timeout, crash, ...)") {
            $0.status.rawValue
        },
        .key("error", "the failure's message; empty when ok") { $0.error },
        .integer(
            "baseline_allocated_bytes",
            \.baselineAllocatedBytes,
            .bytes,
            .neither,
            "the allocator's live bytes as the window opened"
        ),
        .integer(
            "final_allocated_bytes",
            \.finalAllocatedBytes,
            .bytes,
            .lowerIsBetter,
            "the allocator's live bytes at the window's end"
        ),
        .integer("sampled_peak_rss_bytes", \.sampledPeakRSSBytes, .bytes, .lowerIsBetter, "the highest RSS sample"),
        .integer(
            "hwm_peak_rss_bytes",
            \.hwmPeakRSSBytes,
            .bytes,
            .lowerIsBetter,
            "the kernel's RSS high-water mark (VmHWM), reset as the window opened"
        ),
        .number("fetch_s", \.fetchSeconds, .lowerIsBetter, "the fetch's time"),
        .number("render_s", \.renderSeconds, .lowerIsBetter, "the render's time"),
        .number(
            "startup_s",
            \.startupSeconds,
            .lowerIsBetter,
            "from the spawn to the child's first line of trial code"
        ),
        .number("warmup_s", \.warmupSeconds, .lowerIsBetter, "the child's warm-up before its baseline"),
        .number("wall_s", \.wallSeconds, .lowerIsBetter, "from the spawn to the child's exit, its report included"),
        .integer("image_width", \.imageWidth, .pixels, .neither, "the decoded image's width"),
        .integer("image_height", \.imageHeight, .pixels, .neither, "the decoded image's height"),
        .integer("samples", \.samples, .count, .higherIsBetter, "memory samples taken in the window"),
        .number(
            "sampler_hz",
            \.samplerHertz,
            digits: 0,
            unit: .hertz,
            .higherIsBetter,
            "the sampler's rate over the window"
        ),
        .number(
            "max_gap_ms",
            \.maxSampleGapMillis,
            digits: 3,
            unit: .milliseconds,
            .lowerIsBetter,
            "the longest time between two samples"
        ),
        .number("sampler_cpu_s", \.samplerCPUSeconds, .lowerIsBetter, "the sampler thread's CPU time over its life"),
        .flag("sampler_realtime", \.samplerRealtime, "1 when the sampler ran with real-time priority (SCHED_FIFO)"),
        .integer(
            "baseline_heap_exact_bytes",
            \.baselineHeapExactBytes,
            .bytes,
            .neither,
            "the exact live heap (bench's malloc wrappers) as the window opened"
        ),
        .integer(
            "peak_heap_exact_bytes",
            \.peakHeapExactBytes,
            .bytes,
            .lowerIsBetter,
            "the exact live heap at its highest in the window: no sampling interval can miss it"
        ),
        .derived(
            "peak_heap_exact_delta_bytes",
            .bytes,
            .lowerIsBetter,
            "peak_heap_exact_bytes less baseline_heap_exact_bytes"
        ) { text($0.peakHeapExactDeltaBytes) },
        .flag("warmed_up", \.warmedUp, "1 when the child fetched a warm-up resource before its baseline (0: cold)"),
        .derived("peak_holder", .text, .neither, "the largest holder of the exact heap peak (holders.csv)") {
            $0.peakHolder ?? ""
        },
        .derived(
            "attributed_bytes",
            .bytes,
            .neither,
            "the recorded holders' bytes: the exact heap peak less the blocks under --holder-threshold"
        ) { text($0.attributedBytes) },
        .number("settle_s", \.settleSeconds, .neither, "from the render's end to the final reading (the settle rule)"),
        .integer(
            "floor_bytes",
            \.floorBytes,
            .bytes,
            .neither,
            "the least the cell's contract needs at once, computed from the image and the floor rules, not measured "
                + "(MEASUREMENT.md); empty when a rule is undeclared"
        ),
    ]

    /// The declared column of that name (nil: trials.csv has none).
    package static func column(named name: String) -> TrialColumn? { columns.first { $0.name == name } }

    /// A row's key: its cell (strategy, render, allocator) and run; no two rows of a file share one
    /// (`RowKeyCheck`). The fixture, source and other settings are the run's, the same for every row.
    package static let keyColumns = ["strategy", "render", "allocator", "run"]

    /// The column naming the run a row belongs to: every file of one run carries the same id.
    package static let runIDColumn = "run_id"

    /// With `runID`, a last `run_id` column says which run wrote each row.
    package static func render(_ results: [TrialResult], runID: String? = nil) -> String {
        let suffix = runID.map { [$0] } ?? []
        var lines = [CSV.line(columns.map(\.name) + (runID == nil ? [] : [runIDColumn]))]
        lines += results.map { result in CSV.line(columns.map { $0.write(result) } + suffix) }
        return lines.joined(separator: "\n") + "\n"
    }

    package static func text(_ value: Int?) -> String { value.map(String.init) ?? "" }
    package static func text(_ value: Double?, digits: Int = 6) -> String {
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
