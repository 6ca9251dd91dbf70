import BenchCore
import Foundation
import Report

/// decode-time.csv (scripts/decode-time.sh, `bench-reference _decode-time`): the stream renderer
/// against the thumbnail renderer (libjpeg-turbo's DCT-scaled decode for a JPEG, libpng's rows
/// boxed down for a PNG) on the same file, to 1024 pixels on the long side, timed in pairs: one
/// decode of each, back to back in one process, their order alternating from pair to pair, each
/// timed by the CPU time of the decoding thread. A pair's ratio is stream over thumbnail; an
/// encoding's ratio is the median of its pairs' ratios, with the distribution-free 95% interval of
/// that median (order statistics). Pairs, not two blocks of runs: on a shared machine a block of
/// one renderer then one of the other meets different neighbours, which biases a ratio of medians
/// by more than the targets' margins.
package struct DecodeTime: Sendable, Equatable {
    package struct Encoding: Sendable, Equatable {
        package var name: String
        /// Each pair's CPU seconds, in pair order.
        package var stream: [Double]
        package var thumbnail: [Double]

        /// Each pair's stream time over its thumbnail time.
        package var ratios: [Double] { zip(stream, thumbnail).map { $0 / $1 } }
        /// The median of the pairs' ratios (not the ratio of the medians).
        package var ratio: Double { DecodeTime.median(ratios) }
        /// The 95% interval of that median.
        package var interval: (low: Double, high: Double) { DecodeTime.medianInterval(ratios) }
        /// The target of DecodeTime.targets for this encoding.
        package var target: Double? { DecodeTime.targets[name] }
    }

    package var encodings: [Encoding]
    package static let fileName = "decode-time.csv"
    package static let header = ["encoding", "pair", "stream_cpu_s", "thumbnail_cpu_s"]

    /// Issue 46's targets for the stream renderer, as a multiple of the thumbnail renderer's time:
    /// baseline JPEG (any subsampling, restart markers or not) 1.1, progressive JPEG 1.0, PNG 1.3.
    package static let targets: [String: Double] = [
        "jpeg": 1.1, "jpeg-444": 1.1, "jpeg-restart": 1.1, "jpeg-progressive": 1.0, "jpeg-progressive-444": 1.0,
        "png-rgb-interlaced": 1.3,
    ]
    /// What each encoding is, for the table (the fixtures of scripts/decode-time.sh).
    static let titles: [String: String] = [
        "jpeg": "JPEG baseline 4:2:0", "jpeg-444": "JPEG baseline 4:4:4",
        "jpeg-restart": "JPEG baseline 4:2:0, a restart marker every MCU row",
        "jpeg-progressive": "JPEG progressive 4:2:0", "jpeg-progressive-444": "JPEG progressive 4:4:4",
        "png-rgb-interlaced": "PNG RGB, Adam7 interlaced",
    ]

    package static func parse(_ text: String) throws -> DecodeTime {
        var encodings: [Encoding] = []
        for (line, fields) in try CSV.rows(of: text, header: header, fileName: fileName) {
            guard fields.count == header.count, !fields[0].isEmpty, Int(fields[1]) != nil,
                let stream = Double(fields[2]), let thumbnail = Double(fields[3]), stream > 0, thumbnail > 0
            else {
                throw CSVError(
                    "\(line): expected encoding,pair,stream_cpu_s,thumbnail_cpu_s with positive times"
                )
            }
            if let at = encodings.firstIndex(where: { $0.name == fields[0] }) {
                encodings[at].stream.append(stream)
                encodings[at].thumbnail.append(thumbnail)
            } else {
                encodings.append(Encoding(name: fields[0], stream: [stream], thumbnail: [thumbnail]))
            }
        }
        guard !encodings.isEmpty else { throw CSVError("\(fileName) has no pairs") }
        return DecodeTime(encodings: encodings)
    }

    /// The median of `values` (the mean of the middle two for an even count); 0 for none.
    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The 1-based ranks of the order statistics that bound the median's distribution-free 95%
    /// interval: n/2 - 0.98 sqrt(n) rounded down and 1 + n/2 + 0.98 sqrt(n) rounded up (the count
    /// of values below the median is binomial(n, 1/2): 1.96 standard deviations of sqrt(n)/2),
    /// clamped to 1...n.
    package static func medianIntervalRanks(count n: Int) -> (low: Int, high: Int) {
        let half = Double(n) / 2
        let spread = 0.98 * Double(n).squareRoot()
        let low = Int((half - spread).rounded(.down))
        let high = Int((1 + half + spread).rounded(.up))
        return (Swift.max(1, Swift.min(n, low)), Swift.max(1, Swift.min(n, high)))
    }

    /// The median's 95% interval: the order statistics at medianIntervalRanks.
    package static func medianInterval(_ values: [Double]) -> (low: Double, high: Double) {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return (0, 0) }
        let ranks = medianIntervalRanks(count: sorted.count)
        return (sorted[ranks.low - 1], sorted[ranks.high - 1])
    }

    /// The pairs per encoding (the smallest count, if they differ).
    package var pairs: Int { encodings.map(\.stream.count).min() ?? 0 }

    /// REPORT.md's table: per encoding, the medians of each renderer's CPU time, the median of the
    /// pairs' ratios with its interval, and the target.
    package func table() -> String {
        let rows = encodings.map { encoding -> [String] in
            let interval = encoding.interval
            let verdict = encoding.target.map { encoding.ratio <= $0 ? "within \(format($0))" : "over \(format($0))" }
            return [
                Self.titles[encoding.name] ?? encoding.name,
                String(format: "%.3f", Self.median(encoding.stream)),
                String(format: "%.3f", Self.median(encoding.thumbnail)),
                format(encoding.ratio), "\(format(interval.low))-\(format(interval.high))", verdict ?? "–",
            ]
        }
        return MarkdownTable.render(
            header: [
                "encoding", "stream (CPU s)", "thumbnail (CPU s)", "ratio (median of pairs)", "95% interval", "target",
            ],
            rows: rows,
            leftAligned: 1
        )
    }

    /// What the prose quotes: the pairs per file (the ratios are the table's).
    package func values() -> [String: String] {
        ["decode_time_pairs": String(pairs)]
    }

    private func format(_ ratio: Double) -> String { String(format: "%.2f", ratio) }
}
