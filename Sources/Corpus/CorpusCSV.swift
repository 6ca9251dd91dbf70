import BenchCore
import Foundation
import Harness
import Report

/// `corpus.csv`: one row per run (and one per image that was not measured), the image's facts
/// beside the run's figures, units in the column names.
package enum CorpusCSV {
    package static let fileName = "corpus.csv"
    package static let columns: [WrittenColumn<CorpusRow>] = [
        .init("file", .text, .neither, "the image's path below the corpus folder (or its URL)") { $0.image.entry.name },
        .init("format", .text, .neither, "the format read from the bytes (jpeg, png, webp, heic, avif)") {
            $0.image.format?.rawValue ?? ""
        },
        .init("width", .pixels, .neither, "the image's width, from its header") { text($0.image.facts?.width) },
        .init("height", .pixels, .neither, "the image's height, from its header") { text($0.image.facts?.height) },
        .init("pixels", .pixels, .neither, "width times height") { text($0.image.facts?.pixelCount) },
        .init("progressive", .flag, .neither, "1 for a progressive (multi-scan) JPEG or an Adam7-interlaced PNG") {
            flag($0.image.facts?.progressive)
        },
        .init(
            "chroma_subsampling",
            .text,
            .neither,
            "JPEG only: 4:2:0, 4:2:2, 4:4:4, gray, or the sampling factors when unusual"
        ) {
            $0.image.facts?.chromaSubsampling ?? ""
        },
        .init("bit_depth", .count, .neither, "bits a sample, as stored") { text($0.image.facts?.bitDepth) },
        .init("alpha", .flag, .neither, "1 when the image has an alpha channel") { flag($0.image.facts?.hasAlpha) },
        .init("lossless", .flag, .neither, "WebP only: 1 for lossless (VP8L), 0 for lossy (VP8)") {
            flag($0.image.facts?.lossless)
        },
        .init("encoding", .text, .neither, "the format and how it is coded, in one label (e.g. jpeg progressive 4:2:0)")
        {
            $0.image.facts?.encodingLabel ?? ""
        },
        .init("payload_bytes", .bytes, .neither, "the bytes of the image fetched (the file's size when not measured)") {
            text($0.result?.payloadBytes ?? $0.image.fileBytes)
        },
        trial("strategy"), trial("render"), trial("allocator"), trial("run"), trial("pid"),
        trial("peak_rss_delta_bytes"), trial("peak_heap_exact_delta_bytes"), trial("final_rss_bytes"),
        trial("duration_s"),
        .init("status", .text, .neither, "the run's status, or why the file was not measured") {
            $0.result?.status.rawValue ?? $0.image.skipStatus ?? ""
        },
        .init("error", .text, .neither, "what went wrong, in words; empty when nothing did") {
            $0.result?.error ?? $0.image.skipReason ?? ""
        },
        // The file's (or URL's) bytes as examined: a resume finds a file that changed since by it.
        .init(
            payloadDigestColumn,
            .text,
            .neither,
            "FNV-1a-64 of the bytes as examined: a resume re-measures a changed file"
        ) {
            $0.image.payloadDigest ?? ""
        },
        trial("floor_bytes"),
    ]

    package static let payloadDigestColumn = "payload_fnv1a64"

    /// A run's column as trials.csv declares it (`TrialsCSV.columns`), written the same way; empty for
    /// a file that was not measured.
    static func trial(_ name: String) -> WrittenColumn<CorpusRow> {
        guard let trial = TrialsCSV.column(named: name) else {
            preconditionFailure("corpus.csv names \(name), which trials.csv does not declare")
        }
        let column = trial.column
        return .init(column.name, column.unit, column.polarity, column.meaning) { $0.result.map(trial.write) ?? "" }
    }

    /// A row's key: the file, its cell and its run (empty for a file's one unmeasured row); no two
    /// rows of a file share one (`RowKeyCheck`).
    package static let keyColumns = ["file"] + TrialsCSV.keyColumns

    package static func render(_ rows: [CorpusRow], runID: String) -> String {
        var lines = [CSV.line(columns.map(\.name) + [TrialsCSV.runIDColumn])]
        lines += rows.map { row in CSV.line(columns.map { $0.write(row) } + [runID]) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func text(_ value: Int?) -> String { value.map(String.init) ?? "" }
    static func flag(_ value: Bool?) -> String { value.map { $0 ? "1" : "0" } ?? "" }
}
