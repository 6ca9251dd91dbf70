import BenchCore
import Foundation
import Imaging

extension CorpusCSV {
    /// Reads the rows `render` wrote back into corpus rows with their images' facts (for a merge
    /// of shards; `parse` reads them as lines with their runs, for a resume), as much of them as the ranking and a
    /// second `render` use (a peak delta comes back over a zero baseline). Columns are found by name;
    /// extra ones (machine, run_id) are skipped.
    package static func corpusRows(_ text: String) throws -> [CorpusRow] {
        let table = try CSV.parse(text)
        guard let header = table.first, !header.isEmpty else { throw CSVError("empty file: no header row") }
        let index = Dictionary(header.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // Folders of older versions have no digest column.
        let missing = columns.map(\.name).filter { index[$0] == nil && $0 != payloadDigestColumn }
        guard missing.isEmpty else {
            throw CSVError(
                "not a corpus.csv: missing column(s) \(missing.joined(separator: ", ")); found \(header.joined(separator: ","))"
            )
        }
        var keys = RowKeyCheck(key: keyColumns, header: header)
        return try table.dropFirst().enumerated().compactMap { offset, fields -> CorpusRow? in
            let line = offset + 2
            if fields.count == 1 && fields[0].isEmpty { return nil }
            guard fields.count == header.count else {
                throw CSVError("line \(line): \(fields.count) fields, the header has \(header.count)")
            }
            try keys.admit(fields, line: line)
            func field(_ name: String) -> String { fields[index[name]!] }
            func integer(_ name: String) throws -> Int? {
                let text = field(name)
                if text.isEmpty { return nil }
                guard let value = Int(text) else { throw CSVError("line \(line): \(name) '\(text)' is not an integer") }
                return value
            }
            func flag(_ name: String) throws -> Bool? {
                switch field(name) {
                case "": return nil
                case "1": return true
                case "0": return false
                case let other: throw CSVError("line \(line): \(name) '\(other)' is not 0 or 1")
                }
            }

            let name = field("file")
            var image = CorpusImage(entry: CorpusEntry(name: name, location: .file(RawPath(name))))
            if !field("format").isEmpty {
                guard let format = ImageFormat(rawValue: field("format")) else {
                    throw CSVError("line \(line): unknown format '\(field("format"))'")
                }
                image.format = format
                if let width = try integer("width"), let height = try integer("height") {
                    // The label's words are the flags it was made from (ImageInfo.encodingLabel).
                    let label = field("encoding").split(separator: " ")
                    image.facts = ImageInfo(
                        format: format,
                        width: width,
                        height: height,
                        progressive: try flag("progressive") ?? false,
                        chromaSubsampling: field("chroma_subsampling").isEmpty ? nil : field("chroma_subsampling"),
                        bitDepth: try integer("bit_depth") ?? 8,
                        hasAlpha: try flag("alpha") ?? false,
                        lossless: try flag("lossless"),
                        arithmeticCoding: label.contains("arithmetic"),
                        palette: label.contains("palette")
                    )
                }
            }
            image.fileBytes = try integer("payload_bytes")
            image.payloadDigest = index[payloadDigestColumn].map { fields[$0] }.flatMap { $0.isEmpty ? nil : $0 }
            guard !field("strategy").isEmpty else {
                image.skipStatus = field("status")
                image.skipReason = field("error")
                return CorpusRow(image: image, result: nil)
            }
            guard let render = RenderMode(name: field("render")) else {
                throw CSVError("line \(line): unknown render '\(field("render"))'")
            }
            guard let allocator = Allocator(rawValue: field("allocator")) else {
                throw CSVError("line \(line): unknown allocator '\(field("allocator"))'")
            }
            guard let run = try integer("run") else { throw CSVError("line \(line): run is empty") }
            guard let status = TrialStatus(rawValue: field("status")) else {
                throw CSVError("line \(line): unknown status '\(field("status"))'")
            }
            let cell = TrialCell(strategy: field("strategy"), render: render, allocator: allocator)
            guard let pid = Int32(exactly: try integer("pid") ?? 0) else {
                throw CSVError("line \(line): pid '\(field("pid"))' is not a process id")
            }
            var result = TrialResult(cell: cell, run: run, pid: pid)
            result.status = status
            result.error = field("error")
            result.payloadBytes = image.fileBytes
            if let peak = try integer("peak_rss_delta_bytes") {
                (result.baselineRSSBytes, result.peakRSSBytes) = (0, peak)
            }
            if let peak = try integer("peak_heap_exact_delta_bytes") {
                (result.baselineHeapExactBytes, result.peakHeapExactBytes) = (0, peak)
            }
            result.finalRSSBytes = try integer("final_rss_bytes")
            result.floorBytes = try integer("floor_bytes")
            if !field("duration_s").isEmpty {
                guard let seconds = Double(field("duration_s")) else {
                    throw CSVError("line \(line): duration_s '\(field("duration_s"))' is not a number")
                }
                result.durationSeconds = seconds
            }
            return CorpusRow(image: image, result: result)
        }
    }
}
