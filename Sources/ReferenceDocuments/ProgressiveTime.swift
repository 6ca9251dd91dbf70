import BenchCore
import Foundation

/// progressive-time.csv (scripts/progressive-time.sh, the Benchmarks package): the wall-clock
/// samples of the stream renderer's decode of the 6000x4000 progressive JPEG and of libjpeg-turbo's
/// DCT-scaled decode of the same file, measured in one package-benchmark run. The stream
/// renderer's time target is at most `target` times the DCT-scaled decode's median.
package struct ProgressiveTime: Sendable, Equatable {
    package var stream: Distribution
    package var thumbnail: Distribution
    package static let fileName = "progressive-time.csv"
    package static let target = 1.5

    package static func parse(_ text: String) throws -> ProgressiveTime {
        let table = try CSV.parse(text).filter { $0 != [""] }
        let header = ["benchmark", "sample", "wall_ms"]
        guard table.first == header else {
            throw CSVError("not a \(fileName): the header must be \(header.joined(separator: ","))")
        }
        var samples: [String: [Double]] = [:]
        for (index, fields) in table.dropFirst().enumerated() {
            guard fields.count == header.count, Int(fields[1]) != nil, let ms = Double(fields[2]), ms > 0 else {
                throw CSVError("\(fileName) line \(index + 2): expected benchmark,sample,wall_ms with a positive time")
            }
            samples[fields[0], default: []].append(ms)
        }
        guard let stream = Distribution(samples["progressive-stream"] ?? []),
            let thumbnail = Distribution(samples["progressive-thumbnail"] ?? [])
        else { throw CSVError("\(fileName) needs samples of both progressive-stream and progressive-thumbnail") }
        return ProgressiveTime(stream: stream, thumbnail: thumbnail)
    }

    /// The stream decode's median over the DCT-scaled decode's.
    package var ratio: Double { stream.median / thumbnail.median }

    /// `progressive_stream_ms`, `progressive_thumbnail_ms` (medians), their ratio, the target, whether
    /// it is met, and the samples per benchmark.
    package func values() -> [String: String] {
        [
            "progressive_stream_ms": String(format: "%.0f", stream.median),
            "progressive_thumbnail_ms": String(format: "%.0f", thumbnail.median),
            "progressive_stream_ratio": String(format: "%.2f", ratio),
            "progressive_stream_target": String(format: "%.1f", Self.target),
            "progressive_stream_within_target": ratio <= Self.target ? "within" : "over",
            "progressive_time_samples": String(min(stream.count, thumbnail.count)),
            "progressive_stream_range_ms": String(format: "%.0f-%.0f", stream.min, stream.max),
            "progressive_thumbnail_range_ms": String(format: "%.0f-%.0f", thumbnail.min, thumbnail.max),
        ]
    }
}
