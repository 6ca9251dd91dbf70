import BenchCore
import Foundation
import Report

/// Reduces the runs scripts/overhead.sh leaves in its scratch folder to results/overhead/'s three files:
/// phases.csv (one row per trial: where its wall time went, and its final readings over the baseline,
/// the figures the settle decides), settle.csv (one row per trial of the fixed-pause runs: when RSS and
/// the heap last moved after the render, and what the settle rule, replayed on the trial's samples,
/// would have read against the pause's reading) and timings.csv (each matrix run's wall time and loads).
///
/// The scratch folder holds `<label>/timings.csv` and `<label>/<workload>-j<jobs>-<repeat>/` (trials.json,
/// timeline.csv) for each label (`fixed`: the settle as a fixed 50 ms pause; `rule`: the settle rule), as
/// scripts/jobs-timing.sh leaves them.
///
/// The replay is the children's own `SettleDetector` on time alone: the rule's turns (the settling
/// thread's wake-ups) are not in the recorded samples, so on the same samples the live rule ends at the
/// replay's end or later, with no more movement left after it.
package enum OverheadStudy {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The label of the runs whose settle was a fixed pause: the ones the rule is replayed on.
    package static let fixedLabel = "fixed"
    package static let phasesColumns = [
        "settle", "jobs", "repeat", "strategy", "render", "allocator", "run", "startup_ms", "warmup_ms", "window_ms",
        "settle_ms", "tail_ms", "wall_ms", "overhead_ms", "final_rss_delta_bytes", "final_heap_delta_bytes",
        "last_movement_ms",
    ]
    package static let settleColumns = [
        "settle", "jobs", "repeat", "strategy", "render", "allocator", "run", "observed_ms", "last_movement_ms",
        "rule_end_ms", "rule_rss_diff_bytes", "rule_heap_diff_bytes",
    ]

    /// The three files' text by name, each only when it has rows.
    package static func reduce(scratch: URL) throws(Failure) -> [(name: String, text: String)] {
        var phases: [[String]] = []
        var settles: [[String]] = []
        var timings: (columns: [String], rows: [[String]])?
        for label in folders(in: scratch) {
            let folder = scratch.appendingPathComponent(label, isDirectory: true)
            let timingsFile = folder.appendingPathComponent("timings.csv")
            guard let timingsText = try? String(contentsOf: timingsFile, encoding: .utf8) else { continue }
            let table: [[String]]
            do { table = try CSV.parse(timingsText) } catch {
                throw Failure(description: "\(timingsFile.path): \(error)")
            }
            if let header = table.first {
                timings = timings ?? (["settle"] + header, [])
                timings?.rows += table.dropFirst().map { [label] + $0 }
            }
            for runFolder in folders(in: folder) {
                let parts = runFolder.split(separator: "-")
                let trialsFile = folder.appendingPathComponent(runFolder).appendingPathComponent(JSONExport.fileName)
                guard FileManager.default.fileExists(atPath: trialsFile.path), parts.count >= 3 else { continue }
                let key = [label, String(parts[parts.count - 2].dropFirst()), String(parts[parts.count - 1])]
                for trial in try trials(in: folder.appendingPathComponent(runFolder)) where trial.isSuccess {
                    let row =
                        key + [trial.strategy, trial.render.rawValue, trial.allocator.rawValue, String(trial.run)]
                    phases.append(row + phaseFields(trial))
                    if label == fixedLabel, let fields = settleFields(trial) { settles.append(row + fields) }
                }
            }
        }
        var files: [(name: String, text: String)] = []
        if !phases.isEmpty { files.append(("phases.csv", text(phasesColumns, phases))) }
        if !settles.isEmpty { files.append(("settle.csv", text(settleColumns, settles))) }
        if let timings, !timings.rows.isEmpty { files.append(("timings.csv", text(timings.columns, timings.rows))) }
        return files
    }

    /// A run folder's trials (trials.json: its values unrounded) with their samples (timeline.csv).
    static func trials(in folder: URL) throws(Failure) -> [TrialResult] {
        let path = folder.appendingPathComponent(JSONExport.fileName).path
        var trials: [TrialResult]
        do { trials = try TrialsFile.load(path) } catch { throw Failure(description: "\(path): \(error)") }
        let timelineFile = folder.appendingPathComponent(TimelineCSV.fileName)
        do {
            let text = try String(contentsOf: timelineFile, encoding: .utf8)
            let points = try TimelineCSV.parse(text, keep: Set(trials.map { RunKey(cell: $0.cell, run: $0.run) }))
            for index in trials.indices {
                trials[index].timeline = points[RunKey(cell: trials[index].cell, run: trials[index].run)] ?? []
            }
        } catch {
            throw Failure(description: "\(timelineFile.path): \(error)")
        }
        return trials
    }

    /// Where a trial's wall time went, in milliseconds, and its final readings over the baseline; an
    /// empty cell for what the trial did not record (and for what is computed from it).
    package static func phaseFields(_ trial: TrialResult) -> [String] {
        let window = trial.durationSeconds
        // The settle: recorded by the child, or (older children) the last sample after the render.
        let settle = trial.settleSeconds ?? window.flatMap { window in trial.timeline.last.map { $0.seconds - window } }
        let (startup, warmup, wall) = (trial.startupSeconds, trial.warmupSeconds, trial.wallSeconds)
        var tail: Double?
        if let startup, let warmup, let window, let settle, let wall {
            tail = wall - startup - warmup - window - settle
        }
        let overhead = wall.flatMap { wall in window.map { wall - $0 } }
        return [startup, warmup, window, settle, tail, wall, overhead].map { $0.map(milliseconds) ?? "" } + [
            difference(trial.finalRSSBytes, trial.baselineRSSBytes),
            difference(trial.finalAllocatedBytes, trial.baselineAllocatedBytes),
            // From the render to the last reading that moved past the rule's tolerances (rule runs record it).
            trial.settleLastMovementSeconds.map(milliseconds) ?? "",
        ]
    }

    /// The settle observed and the rule replayed on the trial's samples after the render; nil without
    /// samples or without the render's end.
    static func settleFields(_ trial: TrialResult) -> [String]? {
        guard let final = trial.timeline.last, let window = trial.durationSeconds else { return nil }
        let observed = trial.settleSeconds ?? final.seconds - window
        var detector = SettleDetector(
            // No maximum: the samples end where the pause ended (Int64.max, so that start + maximum cannot wrap).
            rule: SettleRule(quietNanos: SettleRule.defaultQuietNanos, maximumNanos: UInt64(Int64.max), quietTurns: 0),
            start: nanos(window)
        )
        var met: TimelinePoint?
        for point in trial.timeline {
            let settled = detector.observe(
                time: nanos(point.seconds),
                residentBytes: point.residentBytes,
                heapBytes: point.allocatedBytes
            )
            if settled && met == nil { met = point }
        }
        let lastMovement = Double(detector.lastMovement) / 1e9
        return [
            milliseconds(observed), milliseconds(lastMovement - window),
            met.map { milliseconds($0.seconds - window) } ?? "",
            met.map { String(abs($0.residentBytes - final.residentBytes)) } ?? "",
            met.map { String(abs($0.allocatedBytes - final.allocatedBytes)) } ?? "",
        ]
    }

    /// The folders in `url` by name, in byte order.
    static func folders(in url: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.appendingPathComponent($0).path, isDirectory: &isFolder)
                && isFolder.boolValue
        }
        .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    static func milliseconds(_ seconds: Double) -> String { String(format: "%.3f", seconds * 1000) }

    static func nanos(_ seconds: Double) -> UInt64 { UInt64(max(0, (seconds * 1e9).rounded())) }

    static func difference(_ value: Int?, _ base: Int?) -> String {
        guard let value, let base else { return "" }
        return String(value - base)
    }

    static func text(_ columns: [String], _ rows: [[String]]) -> String {
        ([columns] + rows).map(CSV.line).joined(separator: "\n") + "\n"
    }
}
