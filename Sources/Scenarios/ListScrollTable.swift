import BenchCore
import Foundation

/// The console line printed after each list-scroll run (the CSV has every column).
package enum ListScrollTable {
    package static let header =
        "strategy  render     cap  status   peak RSS  final RSS  peak heap      floor  sent/payload  wasted    started/done/cancelled/failed  cache hits  t-to-image med/max ms"

    package static func line(_ r: ScrollResult) -> String {
        // "-" where the child left no report: not measured.
        func mb(_ bytes: Int?) -> String { bytes.map { String(format: "%6.1f MB", Double($0) / 1e6) } ?? "        -" }
        func over(_ value: Int?, _ baseline: Int?) -> Int? {
            guard let value, let baseline else { return nil }
            return value - baseline
        }
        func count(_ value: Int?) -> String { value.map(String.init) ?? "-" }
        let times = [r.timeToImageMedianMillis, r.timeToImageMaxMillis].map {
            $0.map { String(format: "%.0f", $0) } ?? "-"
        }
        return [
            r.spec.strategy.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0),
            r.spec.render.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0),
            String(format: "%4d", r.spec.maxConcurrent),
            r.status.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0),
            mb(over(r.peakRSSBytes, r.baselineRSSBytes)), mb(over(r.finalRSSBytes, r.baselineRSSBytes)),
            mb(over(r.peakHeapBytes, r.baselineHeapBytes)),
            mb(r.floorBytes),
            String(format: "%5.0f/%-5.0f MB", Double(r.bytesSent) / 1e6, Double(r.payloadBytesAllRows) / 1e6),
            mb(r.bytesWasted),
            [r.requestsStarted, r.requestsCompleted, r.requestsCancelled, r.requestsFailed].map(count).joined(
                separator: "/"
            ).padding(
                toLength: 29,
                withPad: " ",
                startingAt: 0
            ),
            count(r.cacheHits).leftPadded(to: 10),
            "\(times[0])/\(times[1])",
        ].joined(separator: "  ")
    }
}

extension String {
    /// The text right-aligned in `width` columns.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
