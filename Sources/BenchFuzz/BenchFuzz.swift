import BenchCore
import Foundation
import Imaging
import ReferenceDocuments
import Report

/// Every reader of bytes that come from outside, on one input: the image header inspectors
/// and the readers of trials.csv, trials.json, timeline.csv, sweep.csv and encodings.csv.
/// An input is fine when each reader returns or throws; a trap is the bug the fuzzer reports.
enum FuzzTarget {
    static func run(_ data: Data) {
        inspect(data)
        read(text: String(decoding: data, as: UTF8.self))
        _ = try? JSONDecoder.trials.decode(ExportedTrials.self, from: data)  // as TrialsFile.load reads trials.json
    }

    static func inspect(_ data: Data) {
        _ = ImageInspector.sniff(data)
        guard let info = try? ImageInspector.inspect(data) else { return }
        // What the corpus and the decoders compute from a header, without decoding a pixel.
        _ = (info.summary, info.pixelCount)
        _ = ThumbnailSize.of(width: info.width, height: info.height, maxPixel: 1024)
    }

    static func read(text: String) {
        _ = try? CSV.parse(text)
        _ = try? TrialsCSV.parse(text)
        _ = try? TimelineCSV.parse(text, keep: [])
        _ = try? SweepCSV.parse(text)
        if let costs = try? EncodingCosts.parse(text) {
            _ = (costs.table(), costs.values(), costs.chartData())
        }
    }

    /// trials.json's part that bench compare and bench report read.
    struct ExportedTrials: Decodable {
        var trials: [TrialResult]
    }
}

#if FUZZING
/// libFuzzer's entry: one input. scripts/fuzz.sh builds with -sanitize=fuzzer and -D FUZZING.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.run(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

/// libFuzzer's driver (in its runtime since LLVM 11). SwiftPM makes an executable target's
/// `main` its own, so libFuzzer's `main` is not used: ours hands the command line to the driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif

/// With libFuzzer (FUZZING): its driver, with its options (-max_total_time=...). Without: replays
/// the files named on the command line (a crasher, a corpus), so an input the fuzzer reported
/// can be rerun under a plain `swift build`.
@main struct BenchFuzz {
    static func main() throws {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
        #else
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            FileHandle.standardError.write(
                Data("usage: BenchFuzz FILE...   (scripts/fuzz.sh fuzzes; this replays inputs)\n".utf8)
            )
            exit(64)
        }
        for path in paths {
            FuzzTarget.run(try Data(contentsOf: URL(fileURLWithPath: path)))
            print("ok \(path)")
        }
        #endif
    }
}
