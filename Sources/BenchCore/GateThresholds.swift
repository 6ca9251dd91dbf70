import Foundation

/// A metric the gate compares, per run; named as its trials.csv column.
package enum GateMetric: String, CaseIterable, Codable, Sendable, CodingKeyRepresentable {
    case peakRSSDelta = "peak_rss_delta_bytes"
    case peakAllocatedDelta = "peak_allocated_delta_bytes"

    package var label: String {
        switch self {
        case .peakRSSDelta: return "peak RSS"
        case .peakAllocatedDelta: return "heap peak"
        }
    }

    /// The heap metric is the exact peak (CHeapPeak's counters) when the run has it, else the sampled
    /// one: the sampled peak can miss a short spike, so it would move with the sampler's luck.
    package func value(of result: TrialResult) -> Int? {
        switch self {
        case .peakRSSDelta: return result.peakRSSDeltaBytes
        case .peakAllocatedDelta: return result.peakHeapExactDeltaBytes ?? result.peakAllocatedDeltaBytes
        }
    }
}

/// How much a metric's median may grow before the gate calls it a regression:
/// the larger of an absolute and a relative allowance. The absolute one keeps small cells
/// (a few hundred kB that wobble by 20 %) quiet; the relative one scales with large cells.
package struct Tolerance: Codable, Sendable, Equatable {
    package var absoluteBytes: Int
    package var relativePercent: Double

    package init(absoluteBytes: Int, relativePercent: Double) {
        self.absoluteBytes = absoluteBytes
        self.relativePercent = relativePercent
    }

    package func allowedGrowth(fromMedian baseline: Double) -> Double {
        max(Double(absoluteBytes), abs(baseline) * relativePercent / 100)
    }

    enum CodingKeys: String, CodingKey {
        case absoluteBytes = "absolute_bytes"
        case relativePercent = "relative_percent"
    }
}

/// The committed gate settings (results/thresholds.json).
package struct GateThresholds: Codable, Sendable, Equatable {
    /// One-sided Mann-Whitney level a growth must reach to count as a regression.
    package var significanceLevel: Double
    /// A cell whose runs spread more than this (coefficient of variation) gets a stability warning.
    package var cvWarningPercent: Double
    package var metrics: [GateMetric: Tolerance]

    package init(significanceLevel: Double, cvWarningPercent: Double, metrics: [GateMetric: Tolerance]) {
        self.significanceLevel = significanceLevel
        self.cvWarningPercent = cvWarningPercent
        self.metrics = metrics
    }

    enum CodingKeys: String, CodingKey {
        case significanceLevel = "significance_level"
        case cvWarningPercent = "cv_warning_percent"
        case metrics
    }

    /// Metrics in a fixed order, for the table.
    package var comparedMetrics: [GateMetric] { GateMetric.allCases.filter { metrics[$0] != nil } }

    package static func load(from url: URL) throws -> GateThresholds {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ThresholdsError("cannot read thresholds file \(url.path): \(error.localizedDescription)")
        }
        let thresholds: GateThresholds
        do {
            thresholds = try JSONDecoder().decode(GateThresholds.self, from: data)
        } catch let error as DecodingError {
            throw ThresholdsError(
                "thresholds file \(url.path) is malformed: \(error.summary); "
                    + "metrics can be \(GateMetric.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        try thresholds.check(file: url.path)
        return thresholds
    }

    func check(file: String) throws {
        guard significanceLevel > 0 && significanceLevel < 1 else {
            throw ThresholdsError("\(file): significance_level must be in (0, 1), got \(significanceLevel)")
        }
        guard !metrics.isEmpty else {
            throw ThresholdsError(
                "\(file): no metrics; give at least one of \(GateMetric.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        for (metric, tolerance) in metrics where tolerance.absoluteBytes < 0 || tolerance.relativePercent < 0 {
            throw ThresholdsError("\(file): \(metric.rawValue) has a negative tolerance")
        }
    }
}

package struct ThresholdsError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}

extension DecodingError {
    /// A short account of a JSONDecoder error: what is wrong and where.
    package var summary: String { summarize(self) }
}

private func summarize(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
        let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return keys.isEmpty ? "the top level" : String(keys.drop { $0 == "." })
    }
    switch error {
    case .keyNotFound(let key, let context): return "missing '\(key.stringValue)' in \(path(context))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
        return "wrong or missing value at \(path(context)): \(context.debugDescription)"
    case .dataCorrupted(let context):
        let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        return "\(context.debugDescription)\(underlying.map { " (\($0))" } ?? "") at \(path(context))"
    @unknown default: return String(describing: error)
    }
}
