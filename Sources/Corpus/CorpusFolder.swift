import BenchCore
import Foundation
import Harness
import Imaging
import Report

/// Finishes a corpus run's folder from its corpus.csv alone (`bench report` on a folder whose run
/// was stopped, SIGKILL included): the ranking (corpus-summary.csv) and the chart's data, as the
/// run would have written them at its end. The images' facts are read back from their columns.
package enum CorpusFolder {
    package static let rowsFile = CorpusCSV.fileName

    package static func isCorpusFolder(_ folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(rowsFile).path)
    }

    /// Writes the summary files; returns their URLs. Throws `CSVError` for a corpus.csv it cannot read.
    package static func finish(_ folder: URL) throws -> [URL] {
        let url = folder.appendingPathComponent(rowsFile)
        let text = try String(contentsOf: url, encoding: .utf8)
        let (parsed, torn) = try CorpusCSV.parse(text)
        if torn { StandardError.write(CSV.tornLineNote(url.path)) }
        let table = try CSV.parse(CSV.completeLines(text).text)
        let header = table.first ?? []
        let index = Dictionary(header.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = zip(parsed, table.dropFirst().filter { !($0.count == 1 && $0[0].isEmpty) }).map { row, fields in
            CorpusRow(image: image(row.name, fields: fields, index: index), result: row.result)
        }
        let renders = rows.compactMap(\.result?.render).reduce(into: [RenderMode]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        let runID =
            index[TrialsCSV.runIDColumn].flatMap { column in
                table.dropFirst().last.flatMap { column < $0.count ? $0[column] : nil }
            } ?? ""
        let costs = CorpusRanking.rank(rows, by: CorpusRanking.rankingRender(renders) ?? .full)
        var files: [(String, String)] = [
            ("corpus-summary.csv", CorpusRanking.csv(costs, renders: renders, runID: runID))
        ]
        files += CorpusChartData.files(costs, renders: renders).map { ("charts/data/" + $0.name, $0.contents) }
        return try files.map { name, contents in
            try AtomicFile.writeInFolder(Data(contents.utf8), named: name, in: folder)
            return folder.appendingPathComponent(name)
        }
    }

    /// The image a row is about, as far as corpus.csv describes it.
    static func image(_ name: String, fields: [String], index: [String: Int]) -> CorpusImage {
        func field(_ column: String) -> String { index[column].map { $0 < fields.count ? fields[$0] : "" } ?? "" }
        var image = CorpusImage(
            entry: CorpusEntry(name: name, location: .unreadable(reason: "read back from corpus.csv"))
        )
        image.format = ImageFormat(rawValue: field("format"))
        image.fileBytes = Int(field("payload_bytes"))
        if field("strategy").isEmpty, !field("status").isEmpty {
            image.skipStatus = field("status")
            image.skipReason = field("error")
        }
        if let format = image.format, let width = Int(field("width")), let height = Int(field("height")) {
            let label = field("encoding")
            image.facts = ImageInfo(
                format: format,
                width: width,
                height: height,
                progressive: field("progressive") == "1",
                chromaSubsampling: field("chroma_subsampling").isEmpty ? nil : field("chroma_subsampling"),
                bitDepth: Int(field("bit_depth")) ?? 8,
                hasAlpha: field("alpha") == "1",
                lossless: field("lossless").isEmpty ? nil : field("lossless") == "1",
                arithmeticCoding: label.contains("arithmetic"),
                palette: label.contains("palette")
            )
        }
        return image
    }
}
