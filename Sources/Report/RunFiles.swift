import BenchCore
import Foundation

/// A run folder's trials rebuilt from the files its run appends as each trial ends: trials.csv's
/// rows, with their samples (timeline.csv) and holders (holders.csv), and what only trials.json
/// holds (the holders' recording cost, the lifetime heap peak, the settle's last movement) from a
/// trials.json of the same run when the run wrote one before it stopped. What `--resume` and
/// `bench merge` start from, so that neither loses what was measured before a stop.
package enum RunFiles {
    package struct Failure: Error, CustomStringConvertible {
        package var path: String
        package var problem: String
        package var description: String { "\(path) cannot be read back: \(problem)" }
    }

    /// The trials in trials.csv's order (none when it is missing). A torn last line of any of the
    /// files is dropped with a note. `runID`: the folder's run, whose trials.json may be used;
    /// `holderThresholdBytes`: the run's --holder-threshold, recorded on trials that have holders.
    /// A row twice, or of another run than `runID` (as `runIDSource` records it), is refused.
    package static func load(
        _ directory: URL,
        runID: String?,
        runIDSource: String = RunSettings.fileName,
        holderThresholdBytes: Int?
    ) throws(Failure) -> [TrialResult] {
        let folder = ResultsWriter(directory: directory)
        guard let text = read(folder.trialsCSV), text.contains("\n") else { return [] }
        var trials: [TrialResult]
        do {
            trials = try TrialsFile.parseDroppingTornLine(
                text,
                path: folder.trialsCSV.path,
                runID: runID.map { ($0, runIDSource) }
            )
        } catch {
            throw Failure(path: folder.trialsCSV.path, problem: String(describing: error))
        }
        let keys = Set(trials.map { RunKey(cell: $0.cell, run: $0.run) })
        if let timeline = read(folder.timelineCSV) {
            let points: [RunKey: [TimelinePoint]]
            do { points = try TimelineCSV.parse(timeline, keep: keys) } catch {
                throw Failure(path: folder.timelineCSV.path, problem: String(describing: error))
            }
            for index in trials.indices { trials[index].timeline = points[key(trials[index])] ?? [] }
        }
        let holdersFile = directory.appendingPathComponent(HoldersCSV.fileName)
        if let holders = read(holdersFile) {
            let (complete, torn) = CSV.completeLines(holders)
            if torn { StandardError.write(CSV.tornLineNote(holdersFile.path)) }
            let runs: [HolderRun]
            do { runs = complete.isEmpty ? [] : try HoldersCSV.parse(complete) } catch {
                throw Failure(path: holdersFile.path, problem: String(describing: error))
            }
            // The last rows of a run win: a run re-measured after a kill has its new holders last.
            let byKey = Dictionary(
                runs.map { (RunKey(cell: $0.cell, run: $0.run), $0) },
                uniquingKeysWith: { _, last in last }
            )
            for index in trials.indices {
                guard let run = byKey[key(trials[index])] else { continue }
                trials[index].holders = run.holders
                trials[index].holdersDropped = run.dropped
                trials[index].holderThresholdBytes = holderThresholdBytes
            }
        }
        let residencyFile = directory.appendingPathComponent(ResidencyCSV.fileName)
        if let residency = read(residencyFile) {
            let (complete, torn) = CSV.completeLines(residency)
            if torn { StandardError.write(CSV.tornLineNote(residencyFile.path)) }
            let runs: [RunKey: [ResidencyRow]]
            do { runs = complete.isEmpty ? [:] : try ResidencyCSV.parse(complete) } catch {
                throw Failure(path: residencyFile.path, problem: String(describing: error))
            }
            for index in trials.indices { trials[index].residency = runs[key(trials[index])] }
        }
        addDetail(from: folder.trialsJSON, runID: runID, to: &trials)
        return trials
    }

    /// Copies what only trials.json holds from an export of the same run, trial by trial.
    static func addDetail(from file: URL, runID: String?, to trials: inout [TrialResult]) {
        guard let runID, let data = FileManager.default.contents(atPath: file.path),
            let export = try? JSONDecoder.trials.decode(JSONExport.self, from: data),
            export.context.runID == runID
        else { return }
        let byKey = Dictionary(export.trials.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        for index in trials.indices {
            guard let detail = byKey[key(trials[index])] else { continue }
            trials[index].lifetimePeakHeapExactBytes = detail.lifetimePeakHeapExactBytes
            trials[index].settleLastMovementSeconds = detail.settleLastMovementSeconds
            trials[index].holderEvents = detail.holderEvents
            trials[index].holderRecordingSeconds = detail.holderRecordingSeconds
            trials[index].residencySnapshots = detail.residencySnapshots
            trials[index].residencySeconds = detail.residencySeconds
            trials[index].residencyInWindowSeconds = detail.residencyInWindowSeconds
            if trials[index].holders == nil, let holders = detail.holders {
                trials[index].holders = holders
                trials[index].holdersDropped = detail.holdersDropped
                trials[index].holderThresholdBytes = detail.holderThresholdBytes
            }
        }
    }

    static func key(_ trial: TrialResult) -> RunKey { RunKey(cell: trial.cell, run: trial.run) }

    static func read(_ url: URL) -> String? {
        FileManager.default.contents(atPath: url.path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Drops from holders.csv the rows of runs trials.csv lacks (a run killed between appending its
    /// holders and its row is measured again): before a resumed run appends to it.
    /// The same for residency.csv.
    package static func dropHoldersOfUnrecordedRuns(in directory: URL, keeping trials: [TrialResult]) throws(Failure) {
        let keys = Set(trials.map(key))
        let files: [(String, (String, Set<RunKey>) throws -> String?)] = [
            (HoldersCSV.fileName, { try HoldersCSV.keeping($0, runs: $1) }),
            (ResidencyCSV.fileName, { try ResidencyCSV.keeping($0, runs: $1) }),
        ]
        for (name, keeping) in files {
            let file = directory.appendingPathComponent(name)
            guard let text = read(file), text.contains("\n") else { continue }
            do {
                guard let kept = try keeping(text, keys) else { continue }
                try AtomicFile.writeInFolder(Data(kept.utf8), to: file)
            } catch {
                throw Failure(path: file.path, problem: String(describing: error))
            }
        }
    }
}
