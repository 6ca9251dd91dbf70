import BenchCore
import Foundation

/// Reads a run's export back, whichever format it is in: trials.json (`{context, trials}`)
/// or trials.csv. JSON is recognised by its first character, not by the file's name.
package enum TrialsFile {
    package enum LoadError: Error, CustomStringConvertible, Equatable {
        case missing(path: String)
        /// No rows: an empty file, a header only, or `"trials": []`.
        case empty(path: String)
        case malformed(path: String, problem: String)
        /// Rows that would count a run twice or mix two runs: a key twice, a row of another run.
        case conflictingRows(path: String, problem: String)
        /// A folder where a file was expected (a run's folder instead of its trials.json).
        case folder(path: String)

        package var description: String {
            switch self {
            case .missing(let path): return "\(path): no such file"
            case .empty(let path): return "\(path): no trials in the file"
            case .malformed(let path, let problem): return "\(path) is not a trials.csv or trials.json: \(problem)"
            case .conflictingRows(let path, let problem): return "\(path): \(problem)"
            case .folder(let path):
                let inside = URL(fileURLWithPath: path).appendingPathComponent(JSONExport.fileName).path
                return "\(path) is a folder, not a trials.csv or trials.json"
                    + (FileManager.default.fileExists(atPath: inside) ? "; did you mean \(inside)?" : "")
            }
        }
    }

    /// A file whose last line is cut short (a run killed while appending it) is read without that
    /// line, with a note; any other fault is the file's.
    /// `runID`: the run every row must be of (a resumed folder's, from settings.json).
    package static func parseDroppingTornLine(
        _ text: String,
        path: String,
        runID: (id: String, source: String)? = nil
    ) throws -> [TrialResult] {
        do {
            return try TrialsCSV.parse(text, runID: runID)
        } catch {
            let (complete, torn) = CSV.completeLines(text)
            guard torn, let trials = try? TrialsCSV.parse(complete, runID: runID) else { throw error }
            StandardError.write(CSV.tornLineNote(path))
            return trials
        }
    }

    /// The file's bytes; a pipe or a FIFO (`/dev/stdin`) is read to its end, which
    /// `Data(contentsOf:)` refuses with a misleading "permission" error.
    static func readWhole(_ path: String) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return try Data(contentsOf: URL(fileURLWithPath: path))  // its error names the cause
        }
        defer { try? handle.close() }
        return try handle.readToEnd() ?? Data()
    }

    package static func load(_ path: String) throws -> [TrialResult] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw LoadError.missing(path: path)
        }
        if isFolder.boolValue { throw LoadError.folder(path: path) }
        let data: Data
        do { data = try readWhole(path) } catch {
            throw LoadError.malformed(path: path, problem: error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw LoadError.malformed(path: path, problem: "not UTF-8 text")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { throw LoadError.empty(path: path) }

        let trials: [TrialResult]
        do {
            if trimmed.hasPrefix("{") {
                trials = try JSONDecoder.trials.decode(Exported.self, from: data).trials
                try TrialsCSV.checkKeys(trials) { "trial \($0 + 1)" }
            } else {
                trials = try parseDroppingTornLine(text, path: path)
            }
        } catch let error as KeyedRowError {
            throw LoadError.conflictingRows(path: path, problem: error.description)
        } catch let error as DecodingError {
            throw LoadError.malformed(path: path, problem: error.summary)
        } catch {
            throw LoadError.malformed(path: path, problem: String(describing: error))
        }
        if trials.isEmpty { throw LoadError.empty(path: path) }
        // trials.json's figures get the checks trials.csv's get when parsed.
        if let (index, impossible) = trials.enumerated().lazy.compactMap({ index, trial in
            trial.impossibleFigure.map { (index, $0) }
        }).first {
            throw LoadError.malformed(path: path, problem: "trial \(index + 1): \(impossible)")
        }
        // A run's export beside the other files of its run: they must agree (one run, no cut file).
        let url = URL(fileURLWithPath: path)
        if [TrialsCSV.fileName, JSONExport.fileName].contains(url.lastPathComponent) {
            do {
                try RunConsistency.check(ResultsWriter(directory: url.deletingLastPathComponent()))
            } catch let error as KeyedRowError {
                throw LoadError.conflictingRows(path: path, problem: error.description)
            } catch {
                throw LoadError.malformed(path: path, problem: String(describing: error))
            }
        }
        return trials
    }

    /// The provenance of the run a trials.json or trials.csv holds: trials.json's context (for a
    /// trials.csv, its run's trials.json beside it); nil when none is recorded (an older bench, a
    /// hand-made file), which a reader calls unknown.
    package static func provenance(_ path: String) -> Provenance? {
        struct Exported: Decodable { var context: RunContext? }
        let url = URL(fileURLWithPath: path)
        guard let data = try? readWhole(path), let text = String(data: data, encoding: .utf8) else { return nil }
        if text.drop(while: \.isWhitespace).hasPrefix("{") {
            return (try? JSONDecoder.trials.decode(Exported.self, from: data))?.context?.provenance
        }
        guard url.lastPathComponent == TrialsCSV.fileName else { return nil }
        let beside = url.deletingLastPathComponent().appendingPathComponent(JSONExport.fileName)
        guard let json = FileManager.default.contents(atPath: beside.path) else { return nil }
        return (try? JSONDecoder.trials.decode(Exported.self, from: json))?.context?.provenance
    }

    /// The part of trials.json the gate needs; the context is optional so hand-made files work.
    struct Exported: Decodable {
        var trials: [TrialResult]
    }
}

extension JSONDecoder {
    /// Reads what `JSONExport.encoded()` writes (ISO 8601 dates).
    package static var trials: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
