import BenchCore
import Foundation

/// `bench compare` of two image-server runs: each cell's memory per request in flight (the heap's
/// slope and RSS's, `ServerSlope`) gated as a trial's peak is. A slope regresses when it grew by more
/// than its metric's tolerance in the thresholds file (the larger of absolute_bytes and
/// relative_percent of the baseline's slope) and the two 95% intervals do not overlap (the current
/// one lies wholly above): one noisy run can do neither. The fits' intervals stand in for the trial
/// gate's Mann-Whitney test, as a slope is one figure fitted from every run of a cell.
package struct ServerGate: Sendable {
    package enum Verdict: String, Sendable {
        case ok
        case improvement
        /// Grew past its tolerance, but the intervals overlap: not shown to be real.
        case unconfirmed
        case regression
        /// A baseline cell the current run does not have, or has without a slope.
        case missing
        /// The baseline has no slope for the cell (too few runs): nothing to compare with.
        case noBaseline = "no baseline"
    }

    package struct Line: Sendable {
        package var cell: [String]
        package var metric: GateMetric
        package var baseline: ServerSlope.Fit?
        package var current: ServerSlope.Fit?
        package var verdict: Verdict
    }

    package var lines: [Line]

    /// Each baseline cell's heap and RSS slopes against the current run's (cells by strategy,
    /// renderer, allocator and render threads).
    package init(baseline: [ServerPoint], current: [ServerPoint], thresholds: GateThresholds) {
        let currentSlopes = Dictionary(
            ServerSlope.of(current).map { ($0.cell, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        var lines: [Line] = []
        for before in ServerSlope.of(baseline) {
            let after = currentSlopes[before.cell]
            for metric in GateMetric.allCases {
                let fit: (ServerSlope?) -> ServerSlope.Fit? = { metric == .peakRSSDelta ? $0?.rss : $0?.heap }
                let tolerance = thresholds.metrics[metric]
                lines.append(
                    Line(
                        cell: before.cell,
                        metric: metric,
                        baseline: fit(before),
                        current: fit(after),
                        verdict: Self.verdict(fit(before), fit(after), tolerance: tolerance)
                    )
                )
            }
        }
        self.lines = lines
    }

    static func verdict(_ baseline: ServerSlope.Fit?, _ current: ServerSlope.Fit?, tolerance: Tolerance?) -> Verdict {
        guard let baseline else { return .noBaseline }
        guard let current else { return .missing }
        let growth = current.fit.slope - baseline.fit.slope
        let allowed = tolerance?.allowedGrowth(fromMedian: baseline.fit.slope) ?? 0
        if growth > allowed {
            return current.slope.lowerBound > baseline.slope.upperBound ? .regression : .unconfirmed
        }
        if -growth > allowed && current.slope.upperBound < baseline.slope.lowerBound { return .improvement }
        return .ok
    }

    /// 2 when a slope regressed, 3 when a baseline cell is missing from the current run, 5 when the
    /// baseline has no slope at all, else 0: as the trial gate's.
    package var exitCode: BenchExitCode {
        if lines.contains(where: { $0.verdict == .regression }) { return .regression }
        if lines.contains(where: { $0.verdict == .missing }) { return .runFailed }
        if lines.isEmpty || lines.allSatisfy({ $0.verdict == .noBaseline }) { return .noBaseline }
        return .success
    }

    /// The table: a line per cell and metric, slopes in MB per request with their intervals.
    package func render(format: GateReport.Format) -> String {
        func megabytes(_ fit: ServerSlope.Fit?) -> String {
            guard let fit else { return "–" }
            return String(
                format: "%.2f [%.2f, %.2f]",
                fit.fit.slope / 1e6,
                fit.slope.lowerBound / 1e6,
                fit.slope.upperBound / 1e6
            )
        }
        let header = ["cell", "per request in flight", "baseline (MB) [95%]", "current (MB) [95%]", "verdict"]
        let rows = lines.map { line in
            [
                line.cell.joined(separator: "/"), line.metric.label, megabytes(line.baseline), megabytes(line.current),
                line.verdict.rawValue,
            ]
        }
        let verdict =
            switch exitCode {
            case .regression: "REGRESSION: memory per request in flight grew past its tolerance"
            case .runFailed: "FAILED: a baseline cell has no slope in the current run"
            case .noBaseline: "NO BASELINE: the baseline has no slope to compare with"
            default: "OK: memory per request in flight within its tolerances"
            }
        switch format {
        case .markdown:
            return "| " + header.joined(separator: " | ") + " |\n|" + String(repeating: "---|", count: header.count)
                + "\n" + rows.map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
                + "\n\n**\(verdict)**\n"
        case .text:
            let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
            func line(_ cells: [String]) -> String {
                zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                    .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
            }
            return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n\(verdict)\n"
        }
    }

    /// A folder of an image-server run, or its server.csv: the path of the server.csv, or nil when
    /// `path` is neither (a trials file).
    package static func serverCSV(at path: String) -> URL? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
        let url = URL(fileURLWithPath: path)
        if isFolder.boolValue {
            let file = url.appendingPathComponent(ServerCSV.fileName)
            return FileManager.default.fileExists(atPath: file.path) ? file : nil
        }
        return url.lastPathComponent == ServerCSV.fileName ? url : nil
    }

    /// The ok runs of a server.csv.
    package static func points(in file: URL) throws -> [ServerPoint] {
        let (header, rows) = try ServerCSV.rowsByName(String(contentsOf: file, encoding: .utf8))
        guard header.contains("in_flight_at_peak") else {
            throw ServerGateError("\(file.path) is not an image-server server.csv (no in_flight_at_peak column)")
        }
        return rows.compactMap(ServerPoint.init(row:))
    }
}

package struct ServerGateError: Error, CustomStringConvertible, Sendable {
    package var description: String
    init(_ description: String) { self.description = description }
}
