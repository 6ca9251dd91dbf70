import BenchCore
import Foundation

/// Checks that the files of a results folder are one run's: the same run id in trials.csv,
/// timeline.csv and trials.json, as many rows in trials.csv as trials.json says the run has,
/// and no timeline of a run that trials.csv lacks. A trials.csv cut at a row boundary, or files
/// left from two runs (one interrupted while writing, or two runs on one folder), are refused
/// rather than reported as if they were a run. Files of older versions (no run id) are checked
/// for what they have: counts and timelines.
package enum RunConsistency {
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Throws a message naming what disagrees; nothing when the files agree or are absent.
    package static func check(_ folder: any ResultsFolder) throws {
        var problems: [String] = []
        let manager = FileManager.default
        guard manager.fileExists(atPath: folder.trialsCSV.path),
            let text = try? String(contentsOf: folder.trialsCSV, encoding: .utf8)
        else { return }
        // A last line cut short (the run stopped while writing it) is not a row: every reader ignores it.
        let complete = (try? CSV.parse(CSV.completeLines(text).text)) ?? []
        let rows = complete.filter { !($0.count == 1 && $0[0].isEmpty) }
        guard let header = rows.first else { return }
        try checkKeys(complete, header: header, file: folder.trialsCSV.path)
        let body = rows.dropFirst()
        let idColumn = header.firstIndex(of: TrialsCSV.runIDColumn)
        let csvIDs = Set(idColumn.map { column in body.compactMap { column < $0.count ? $0[column] : nil } } ?? [])
        let csvID = csvIDs.count == 1 ? csvIDs.first : nil
        if csvIDs.count > 1 {
            problems.append(
                "trials.csv mixes rows of \(csvIDs.count) runs (\(csvIDs.sorted().joined(separator: ", ")))"
            )
        }
        if let mixed = mixedPayloads(rows, header: header) { problems.append(mixed) }
        let keyColumns = TrialsCSV.keyColumns.compactMap { header.firstIndex(of: $0) }
        let trialKeys = Set(body.map { row in keyColumns.map { $0 < row.count ? row[$0] : "" }.joined(separator: ",") })

        if let data = manager.contents(atPath: folder.trialsJSON.path),
            let export = try? JSONDecoder.trials.decode(ExportedRun.self, from: data)
        {
            let jsonID = export.context?.runID
            if jsonID != csvID && (jsonID != nil || csvID != nil) {
                problems.append(
                    "trials.csv is from run \(csvID ?? "(no run id)") but trials.json from run \(jsonID ?? "(no run id)")"
                )
            } else if export.trials.count != body.count {
                problems.append(
                    "trials.csv has \(body.count) rows but trials.json (run \(jsonID ?? "without id")) has \(export.trials.count): "
                        + "trials.csv was cut or rewritten"
                )
            }
        }

        if let summary = try? String(contentsOf: folder.summaryCSV, encoding: .utf8),
            let summaryRows = try? CSV.parse(summary), let summaryHeader = summaryRows.first
        {
            let column = summaryHeader.firstIndex(of: TrialsCSV.runIDColumn)
            let ids = Set(
                column.map { column in summaryRows.dropFirst().compactMap { column < $0.count ? $0[column] : nil } }
                    ?? []
            )
            .filter { !$0.isEmpty }
            if (column != nil) != (csvID != nil)
                || (column != nil && !ids.isEmpty && ids != Set([csvID].compactMap { $0 }))
            {
                let shown = ids.isEmpty ? "(no run id)" : ids.sorted().joined(separator: ", ")
                problems.append("summary.csv is from run \(shown) but trials.csv from run \(csvID ?? "(no run id)")")
            }
        }

        if let timeline = try? String(contentsOf: folder.timelineCSV, encoding: .utf8) {
            var lines = timeline.split(separator: "\n", omittingEmptySubsequences: true).makeIterator()
            let timelineHeader =
                lines.next().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
            let hasID = timelineHeader.last == TrialsCSV.runIDColumn
            var timelineIDs = Set<Substring>()
            var timelineKeys = Set<Substring>()
            while let line = lines.next() {
                // strategy,render,allocator,run,... : the key is everything before the fourth comma.
                var commas = 0
                var end = line.startIndex
                for index in line.indices where line[index] == "," {
                    commas += 1
                    if commas == 4 {
                        end = index
                        break
                    }
                }
                timelineKeys.insert(line[..<end])
                if hasID, let last = line.lastIndex(of: ",") { timelineIDs.insert(line[line.index(after: last)...]) }
            }
            let ids = Set(timelineIDs.map(String.init))
            if hasID != (csvID != nil) || (hasID && ids != Set([csvID].compactMap { $0 }) && !timelineKeys.isEmpty) {
                let shown = ids.isEmpty ? "(no run id)" : ids.sorted().joined(separator: ", ")
                problems.append("timeline.csv is from run \(shown) but trials.csv from run \(csvID ?? "(no run id)")")
            } else {
                let foreign = timelineKeys.map(String.init).filter { !trialKeys.contains($0) }.sorted()
                if !foreign.isEmpty {
                    problems.append(
                        "timeline.csv has samples of \(foreign.count) run(s) that trials.csv lacks "
                            + "(e.g. \(foreign[0].replacingOccurrences(of: ",", with: " "))): trials.csv was cut or rewritten"
                    )
                }
            }
        }

        guard problems.isEmpty else {
            throw Problem(
                description: "the files of \(folder.directory.path) are not one run's: "
                    + problems.joined(separator: "; ")
                    + ". A run was interrupted while writing, or two runs wrote here; measure again, "
                    + "or point at a folder that holds one run (runs/<time>/)"
            )
        }
    }

    /// trials.csv's rows by their key (`TrialsCSV.keyColumns`): none twice, none of another run
    /// than the first row's (a whole file of another run than trials.json's is named below).
    /// A torn last line is left to the readers.
    static func checkKeys(_ table: [[String]], header: [String], file: String) throws(KeyedRowError) {
        var keys = RowKeyCheck(key: TrialsCSV.keyColumns, header: header)
        for (offset, fields) in table.enumerated().dropFirst() where !(fields.count == 1 && fields[0].isEmpty) {
            do { try keys.admit(fields, line: offset + 1) } catch { throw KeyedRowError("\(file): \(error)") }
        }
    }

    /// Every cell of a run fetches one image: measured rows of two payload sizes are two images
    /// (a `--url` whose file changed before a resume, or rows joined from two runs).
    static func mixedPayloads(_ rows: [[String]], header: [String]) -> String? {
        guard let payload = header.firstIndex(of: "payload_bytes"),
            let status = header.firstIndex(of: "status")
        else { return nil }
        var firstLine: [String: Int] = [:]
        for (offset, row) in rows.enumerated().dropFirst() where row.count == header.count && row[status] == "ok" {
            if firstLine[row[payload]] == nil { firstLine[row[payload]] = offset + 1 }
        }
        guard firstLine.count > 1 else { return nil }
        let sizes = firstLine.sorted { $0.value < $1.value }.map { "\($0.key) bytes from line \($0.value)" }
        return "trials.csv mixes payloads of \(firstLine.count) sizes (\(sizes.joined(separator: ", "))): "
            + "every cell of a run fetches one image, so the image changed during the run or two runs' rows were joined"
    }

    struct ExportedRun: Decodable {
        var context: RunContext?
        var trials: [Trial]
        struct Trial: Decodable {}
    }
}
