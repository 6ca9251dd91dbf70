import BenchCore
import Foundation
import Report

/// decode-stages.csv (scripts/decode-time.sh, scripts/decode-stages.py): where the stream
/// renderer's decode time goes, by stage, from a CPU-clock profile (`perf record -e cpu-clock`) of
/// `bench render --render stream` on each of decode-time.csv's files. A sample counts in the stage
/// of the function it is in (its own time; a function inlined into another counts with its
/// caller); `other` is the process around the decode (start-up, reading the file, writing the
/// output) and is left out of the shares. A stage's milliseconds are its share of the decode's
/// samples times the stream renderer's median CPU time in decode-time.csv.
package struct DecodeStages: Sendable, Equatable {
    package static let fileName = "decode-stages.csv"
    package static let header = ["encoding", "stage", "samples"]
    /// The stages of scripts/decode-stages.py, in its order; `other` last.
    package static let stages = [
        "entropy decoding", "IDCT and colour conversion", "zlib: inflate and checksums", "unfiltering and placing rows",
        "resampling",
    ]
    static let other = "other"

    package struct Encoding: Sendable, Equatable {
        package var name: String
        /// Each stage's samples.
        package var samples: [String: Int]
    }

    /// Per encoding, in the file's order.
    package var encodings: [Encoding]

    package static func parse(_ text: String) throws -> DecodeStages {
        var encodings: [Encoding] = []
        for (line, fields) in try CSV.rows(of: text, header: header, fileName: fileName) {
            guard fields.count == header.count, !fields[0].isEmpty,
                stages.contains(fields[1]) || fields[1] == other, let samples = Int(fields[2]), samples >= 0
            else {
                throw CSVError(
                    "\(line): expected encoding,stage,samples with a stage of "
                        + "\((stages + [other]).joined(separator: ", ")) and a count of samples"
                )
            }
            if let at = encodings.firstIndex(where: { $0.name == fields[0] }) {
                guard encodings[at].samples[fields[1]] == nil else {
                    throw CSVError("\(line): \(fields[0])'s \(fields[1]) is there twice")
                }
                encodings[at].samples[fields[1]] = samples
            } else {
                encodings.append(Encoding(name: fields[0], samples: [fields[1]: samples]))
            }
        }
        guard !encodings.isEmpty else { throw CSVError("\(fileName) has no rows") }
        for encoding in encodings where decodeSamples(encoding.samples) == 0 {
            throw CSVError("\(fileName): \(encoding.name) has no sample in a decoding stage")
        }
        return DecodeStages(encodings: encodings)
    }

    /// The samples in the decoding stages (all but `other`).
    package static func decodeSamples(_ samples: [String: Int]) -> Int {
        stages.reduce(0) { $0 + (samples[$1] ?? 0) }
    }

    /// Each stage's share of an encoding's decoding samples (0 to 1), for the stages it has.
    package func shares(of name: String) -> [String: Double] {
        guard let samples = encodings.first(where: { $0.name == name })?.samples else { return [:] }
        let total = Double(Self.decodeSamples(samples))
        return samples.filter { $0.key != Self.other && $0.value > 0 }.mapValues { Double($0) / total }
    }

    /// REPORT.md's table: per encoding, each stage's milliseconds (its share times the stream
    /// renderer's median CPU time in `time`) and its share; a stage with no sample is a dash.
    package func table(time: DecodeTime?) -> String {
        let used = Self.stages.filter { stage in encodings.contains { ($0.samples[stage] ?? 0) > 0 } }
        let rows = encodings.map { encoding -> [String] in
            let shares = shares(of: encoding.name)
            let seconds = time?.encodings.first { $0.name == encoding.name }.map { DecodeTime.median($0.stream) }
            let cells = used.map { stage -> String in
                guard let share = shares[stage] else { return "–" }
                let percent = String(format: "%.0f%%", share * 100)
                return seconds.map { String(format: "%.0f ms (%@)", share * $0 * 1000, percent) } ?? percent
            }
            return [DecodeTime.titles[encoding.name] ?? encoding.name] + cells + [
                String(Self.decodeSamples(encoding.samples))
            ]
        }
        return MarkdownTable.render(header: ["encoding"] + used + ["samples"], rows: rows, leftAligned: 1)
    }
}
