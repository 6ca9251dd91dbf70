import BenchCore
import Foundation
import Harness
import Report

/// `corpus.csv`: one row per run (and one per image that was not measured), the image's facts
/// beside the run's figures, units in the column names.
package enum CorpusCSV {
    package static let fileName = "corpus.csv"
    package static let columns: [(name: String, value: @Sendable (CorpusRow) -> String)] = [
        ("file", { $0.image.entry.name }),
        ("format", { $0.image.format?.rawValue ?? "" }),
        ("width", { text($0.image.facts?.width) }),
        ("height", { text($0.image.facts?.height) }),
        ("pixels", { text($0.image.facts?.pixelCount) }),
        ("progressive", { flag($0.image.facts?.progressive) }),
        ("chroma_subsampling", { $0.image.facts?.chromaSubsampling ?? "" }),
        ("bit_depth", { text($0.image.facts?.bitDepth) }),
        ("alpha", { flag($0.image.facts?.hasAlpha) }),
        ("lossless", { flag($0.image.facts?.lossless) }),
        ("encoding", { $0.image.facts?.encodingLabel ?? "" }),
        ("payload_bytes", { text($0.result?.payloadBytes ?? $0.image.fileBytes) }),
        trial("strategy"), trial("render"), trial("allocator"), trial("run"), trial("pid"),
        trial("peak_rss_delta_bytes"), trial("peak_heap_exact_delta_bytes"), trial("final_rss_bytes"),
        trial("duration_s"),
        ("status", { $0.result?.status.rawValue ?? $0.image.skipStatus ?? "" }),
        ("error", { $0.result?.error ?? $0.image.skipReason ?? "" }),
        // The file's (or URL's) bytes as examined: a resume finds a file that changed since by it.
        (payloadDigestColumn, { $0.image.payloadDigest ?? "" }),
        // The least the cell's contract needs at once; empty when undeclared.
        trial("floor_bytes"),
    ]

    package static let payloadDigestColumn = "payload_fnv1a64"

    /// The columns corpus.csv shares with trials.csv, as trials.csv declares them (unit, polarity, meaning).
    package static var sharedTrialColumns: [ResultColumn] {
        columns.compactMap { TrialsCSV.column(named: $0.name)?.column }
    }

    /// A run's column as trials.csv declares it (`TrialsCSV.columns`), written the same way; empty for
    /// a file that was not measured.
    static func trial(_ name: String) -> (name: String, value: @Sendable (CorpusRow) -> String) {
        guard let column = TrialsCSV.column(named: name) else {
            preconditionFailure("corpus.csv names \(name), which trials.csv does not declare")
        }
        return (name, { $0.result.map(column.write) ?? "" })
    }

    /// A row's key: the file, its cell and its run (empty for a file's one unmeasured row); no two
    /// rows of a file share one (`RowKeyCheck`).
    package static let keyColumns = ["file"] + TrialsCSV.keyColumns

    package static func render(_ rows: [CorpusRow], runID: String) -> String {
        var lines = [CSV.line(columns.map(\.name) + [TrialsCSV.runIDColumn])]
        lines += rows.map { row in CSV.line(columns.map { $0.value(row) } + [runID]) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func text(_ value: Int?) -> String { value.map(String.init) ?? "" }
    static func flag(_ value: Bool?) -> String { value.map { $0 ? "1" : "0" } ?? "" }
}
