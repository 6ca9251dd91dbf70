import Foundation

/// Order statistics and spread of one cell's runs.
public struct Distribution: Sendable, Equatable {
    public var count: Int
    public var median: Double
    public var p10: Double
    public var p90: Double
    public var min: Double
    public var max: Double
    public var mean: Double
    /// Sample standard deviation (n - 1).
    public var standardDeviation: Double

    /// Coefficient of variation: standard deviation over mean (0 when the mean is 0).
    public var coefficientOfVariation: Double {
        mean == 0 ? 0 : standardDeviation / abs(mean)
    }

    /// nil for an empty sample.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        count = sorted.count
        median = Distribution.percentile(sorted, 0.5)
        p10 = Distribution.percentile(sorted, 0.1)
        p90 = Distribution.percentile(sorted, 0.9)
        min = sorted.first!
        max = sorted.last!
        let mean = sorted.reduce(0, +) / Double(count)
        let squares = sorted.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        self.mean = mean
        standardDeviation = count > 1 ? (squares / Double(count - 1)).squareRoot() : 0
    }

    public init?(_ values: [Int]) {
        self.init(values.map(Double.init))
    }

    /// Linear interpolation between closest ranks (R's type 7, numpy's default).
    public static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard sorted.count > 1 else { return sorted.first ?? .nan }
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * weight
    }
}
