import BenchCore
import Foundation

/// The console line printed after each list-scroll run (the CSV has every column).
package enum ScenarioTable {
    package static let header =
        "strategy  render     cap  status   peak RSS  final RSS  peak heap      floor  sent/payload  wasted    started/done/cancelled/failed  cache hits  t-to-image med/max ms"

    package static func line(_ r: ScrollResult) -> String {
        func mb(_ bytes: Int) -> String { String(format: "%6.1f MB", Double(bytes) / 1e6) }
        let times = [r.timeToImageMedianMillis, r.timeToImageMaxMillis].map {
            $0.map { String(format: "%.0f", $0) } ?? "-"
        }
        return [
            r.spec.strategy.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0),
            r.spec.render.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0),
            String(format: "%4d", r.spec.maxConcurrent),
            r.status.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0),
            mb(r.peakRSSBytes - r.baselineRSSBytes), mb(r.finalRSSBytes - r.baselineRSSBytes),
            mb(r.peakHeapBytes - r.baselineHeapBytes),
            r.floorBytes.map(mb) ?? "        -",
            String(format: "%5.0f/%-5.0f MB", Double(r.bytesSent) / 1e6, Double(r.payloadBytesAllRows) / 1e6),
            mb(r.bytesWasted),
            "\(r.requestsStarted)/\(r.requestsCompleted)/\(r.requestsCancelled)/\(r.requestsFailed)".padding(
                toLength: 29,
                withPad: " ",
                startingAt: 0
            ),
            String(format: "%10d", r.cacheHits),
            "\(times[0])/\(times[1])",
        ].joined(separator: "  ")
    }
}
