import Foundation

extension TrialsCSV {
    /// The header line's fields (with the run_id column when `runID` is given).
    package static func header(runID: String?) -> [String] {
        columns.map(\.name) + (runID == nil ? [] : [runIDColumn])
    }

    /// One row as a CSV line with its newline: what is appended as soon as the run ends.
    package static func line(_ result: TrialResult, runID: String?) -> String {
        CSV.line(columns.map { $0.write(result) } + (runID.map { [$0] } ?? [])) + "\n"
    }
}

extension TimelineCSV {
    package static func header(runID: String?) -> [String] {
        header + (runID == nil ? [] : [TrialsCSV.runIDColumn])
    }

    /// Every sample of one run, each a line: appended as soon as the run ends.
    package static func lines(_ result: TrialResult, runID: String?) -> String {
        let rendered = render([result], runID: runID)
        guard let firstNewline = rendered.firstIndex(of: "\n") else { return "" }
        return String(rendered[rendered.index(after: firstNewline)...])
    }
}
