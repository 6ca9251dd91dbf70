import ArgumentParser
import BenchCore
import Foundation
import Imaging
import ReferenceDocuments
import Report

/// `bench-reference _decode-time --out FILE NAME=PATH...`: the decode-time study's measurement
/// (scripts/decode-time.sh): for each file, the stream and the thumbnail renderer to --max-pixel,
/// in pairs, each decode timed by the CPU time of this thread (CLOCK_THREAD_CPUTIME_ID: what another
/// process on a shared machine takes from the wall clock is not counted), the two of a pair back to
/// back and their order alternating from pair to pair, after --warm-up pairs that are not kept.
/// Writes decode-time.csv (DecodeTime).
struct DecodeTimeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_decode-time",
        abstract: "Time the stream renderer against the thumbnail renderer in pairs (the decode-time study).",
        shouldDisplay: false
    )

    @Option(help: "Pairs kept per file.")
    var pairs = 41

    @Option(name: .customLong("warm-up"), help: "Pairs decoded first and not kept, per file.")
    var warmUp = 2

    @Option(name: .customLong("max-pixel"), help: "The output's long side, as bench run's --max-pixel.")
    var maxPixel = 1024

    @Option(help: "The CSV written (decode-time.csv's columns).")
    var out: String

    @Argument(help: "NAME=PATH: an encoding's name and its file.")
    var files: [String]

    func run() throws {
        guard pairs >= 1, warmUp >= 0, maxPixel >= 1 else {
            throw ValidationError("--pairs and --max-pixel must be at least 1, --warm-up at least 0")
        }
        var lines = [DecodeTime.header.joined(separator: ",")]
        for file in files {
            guard let equals = file.firstIndex(of: "="), equals != file.startIndex else {
                throw ValidationError("expected NAME=PATH, got \(file)")
            }
            let name = String(file[..<equals])
            let path = String(file[file.index(after: equals)...])
            let image = EncodedImage.file(path: path)
            for pair in 0..<(warmUp + pairs) {
                // Stream first in even pairs, thumbnail first in odd ones: neither always meets a
                // cache the other warmed.
                var stream = 0.0
                var thumbnail = 0.0
                if pair % 2 == 0 {
                    stream = try cpuSeconds { _ = try ImageDecoder.decodeStreaming(image, maxPixel: maxPixel) }
                    thumbnail = try cpuSeconds { _ = try ImageDecoder.decodeThumbnail(image, maxPixel: maxPixel) }
                } else {
                    thumbnail = try cpuSeconds { _ = try ImageDecoder.decodeThumbnail(image, maxPixel: maxPixel) }
                    stream = try cpuSeconds { _ = try ImageDecoder.decodeStreaming(image, maxPixel: maxPixel) }
                }
                guard pair >= warmUp else { continue }
                lines.append(
                    "\(name),\(pair - warmUp + 1),\(String(format: "%.6f", stream)),\(String(format: "%.6f", thumbnail))"
                )
            }
            let kept = try DecodeTime.parse(
                ([lines[0]] + lines.filter { $0.hasPrefix(name + ",") }).joined(separator: "\n") + "\n"
            )
            if let encoding = kept.encodings.first {
                let interval = encoding.interval
                StandardError.write(
                    "decode-time: \(name): stream/thumbnail \(String(format: "%.3f", encoding.ratio))"
                        + " (\(String(format: "%.3f-%.3f", interval.low, interval.high))), \(pairs) pairs\n"
                )
            }
        }
        let url = URL(fileURLWithPath: out)
        do { try AtomicFile.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: url) } catch {
            throw BenchReference.fail(.cannotCreateOutput, "cannot write \(out): \(error)")
        }
    }

    /// The CPU time of this thread while `body` runs (the decoders decode on the calling thread).
    private func cpuSeconds(_ body: () throws -> Void) throws -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        try body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }
}
