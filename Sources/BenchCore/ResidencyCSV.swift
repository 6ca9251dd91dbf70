import Foundation

/// `residency.csv`: each run's RSS at its RSS peak and at its window's end, broken into
/// categories (`ResidencyCategory`), each a delta over the baseline; a moment's rows add up to its
/// RSS delta. Appended as each run ends, just before its row in trials.csv, like holders.csv.
package enum ResidencyCSV {
    package static let fileName = "residency.csv"
    package static let header = [
        "run_id", "strategy", "render", "allocator", "run", "moment", "category", "how", "bytes",
    ]

    package static func render(_ results: [TrialResult], runID: String?) -> String {
        CSV.line(header) + "\n" + results.map { lines($0, runID: runID) }.joined()
    }

    /// One run's rows, each a line with its newline (nothing for a run without snapshots).
    package static func lines(_ result: TrialResult, runID: String?) -> String {
        (result.residency ?? []).map { row in
            CSV.line([
                runID ?? "", result.strategy, result.render.rawValue, result.allocator.rawValue,
                String(result.run), row.moment.rawValue, row.category.rawValue,
                row.category.how(under: result.allocator, exactHeap: result.peakHeapExactBytes != nil).rawValue,
                String(row.bytes),
            ]) + "\n"
        }.joined()
    }

    /// Reads residency.csv back: each run's rows, in file order (a run's later rows replace its
    /// earlier ones: a run measured again after a kill has its new rows last).
    package static func parse(_ text: String) throws -> [RunKey: [ResidencyRow]] {
        let rows = try CSV.parse(text).filter { $0 != [""] }
        guard let first = rows.first, first == header else {
            throw CSVError("not a residency.csv: the header must be \(header.joined(separator: ","))")
        }
        var runs: [RunKey: [ResidencyRow]] = [:]
        var lastKey: RunKey?
        for (offset, fields) in rows.dropFirst().enumerated() {
            let line = offset + 2
            let key = try runKey(fields, line: line)
            guard let moment = ResidencyMoment(rawValue: fields[5]),
                let category = ResidencyCategory(rawValue: fields[6]),
                let bytes = Int(fields[8])
            else {
                throw CSVError(
                    "line \(line): moment, category or bytes is not valid (moments: "
                        + ResidencyMoment.allCases.map(\.rawValue).joined(separator: ", ") + "; categories: "
                        + ResidencyCategory.allCases.map(\.rawValue).joined(separator: ", ") + ")"
                )
            }
            // A run's rows start anew with another run's, or with its first row again (measured again).
            if key != lastKey || runs[key]?.contains(where: { $0.moment == moment && $0.category == category }) == true
            {
                runs[key] = []
            }
            lastKey = key
            runs[key, default: []].append(ResidencyRow(moment: moment, category: category, bytes: bytes))
        }
        return runs
    }

    static func runKey(_ fields: [String], line: Int) throws -> RunKey {
        guard fields.count == header.count, let render = RenderMode(name: fields[2]),
            let allocator = Allocator(rawValue: fields[3]), let run = Int(fields[4])
        else {
            throw CSVError(
                "line \(line): not a residency.csv row (\(header.count) fields: \(header.joined(separator: ",")))"
            )
        }
        return RunKey(cell: TrialCell(strategy: fields[1], render: render, allocator: allocator), run: run)
    }

    /// The file without the rows of runs not in `keep`, or nil when it has none: what a resumed
    /// run appends to.
    package static func keeping(_ text: String, runs keep: Set<RunKey>) throws -> String? {
        let rows = try CSV.parse(CSV.completeLines(text).text).filter { $0 != [""] }
        guard rows.first == header else {
            throw CSVError("not a residency.csv: the header must be \(header.joined(separator: ","))")
        }
        let kept = try rows.dropFirst().enumerated().filter { offset, fields in
            keep.contains(try runKey(fields, line: offset + 2))
        }
        guard kept.count < rows.count - 1 else { return nil }
        return ([header] + kept.map(\.element)).map { CSV.line($0) + "\n" }.joined()
    }
}

/// Printed under the holders: each cell's RSS breakdown at its median run's RSS peak.
package enum ResidencyTable {
    /// How a row's bytes were taken, when not measured.
    private static func how(_ how: ResidencyHow) -> String { how == .measured ? "" : " (\(how.rawValue))" }

    package static func render(_ results: [TrialResult], cells: [TrialCell]) -> String {
        var text = ""
        for cell in cells {
            let runs = results.filter {
                $0.cell == cell && $0.isSuccess && $0.residency != nil && $0.peakRSSDeltaBytes != nil
            }
            .sorted { ($0.peakRSSDeltaBytes!, $0.run) < ($1.peakRSSDeltaBytes!, $1.run) }
            guard !runs.isEmpty else { continue }
            let median = runs[(runs.count - 1) / 2]
            let peak = median.residency(at: .rssPeak)
            let end = median.residency(at: .end)
            let snapshot = peak.reduce(0) { $0 + $1.bytes }
            text +=
                "\(cell) run \(median.run), peak RSS delta \(SummaryTable.mb(Double(median.peakRSSDeltaBytes!))) MB"
                + " (snapshot \(SummaryTable.mb(Double(snapshot))) MB), end \(SummaryTable.mb(Double(end.reduce(0) { $0 + $1.bytes }))) MB:\n"
            let exactHeap = median.peakHeapExactBytes != nil
            for row in peak {
                let stayed = end.first { $0.category == row.category }?.bytes ?? 0
                text +=
                    String(format: "  %7.1f MB  %7.1f MB  ", Double(row.bytes) / 1e6, Double(stayed) / 1e6)
                    + row.category.rawValue + how(row.category.how(under: median.allocator, exactHeap: exactHeap))
                    + "\n"
            }
        }
        return text.isEmpty
            ? ""
            : "Resident memory (residency.csv; at each cell's median run's RSS peak, then at its end; "
                + "deltas over the baseline):\n" + text
    }
}
