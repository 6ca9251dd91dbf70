import Foundation

/// Order statistics and spread of one cell's runs.
package struct Distribution: Sendable, Equatable {
    package var count: Int
    package var median: Double
    package var p10: Double
    package var p90: Double
    package var min: Double
    package var max: Double
    package var mean: Double
    /// Sample standard deviation (n - 1).
    package var standardDeviation: Double

    /// Coefficient of variation: standard deviation over mean (0 when the mean is 0).
    package var coefficientOfVariation: Double {
        mean == 0 ? 0 : standardDeviation / abs(mean)
    }

    /// The sample, sorted.
    package var values: [Double]

    /// nil for an empty sample.
    package init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        self.values = sorted
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

    package init?(_ values: [Int]) {
        self.init(values.map(Double.init))
    }

    /// Percentile bootstrap confidence interval of the median: resample the runs with
    /// replacement, take each resample's median, keep the middle `confidence` of them.
    /// Seeded, so the same runs always give the same interval. With few runs it is wide,
    /// which is the honest answer.
    package func medianConfidenceInterval(
        confidence: Double = 0.95,
        resamples: Int = 2000
    ) -> (low: Double, high: Double) {
        guard count > 1 else { return (median, median) }
        var generator = SplitMix64(seed: 0x5EED)
        var medians: [Double] = []
        medians.reserveCapacity(resamples)
        var resample = [Double](repeating: 0, count: count)
        for _ in 0..<resamples {
            for index in 0..<count { resample[index] = values[Int(generator.next() % UInt64(count))] }
            resample.sort()
            medians.append(Distribution.percentile(resample, 0.5))
        }
        medians.sort()
        let tail = (1 - confidence) / 2
        return (Distribution.percentile(medians, tail), Distribution.percentile(medians, 1 - tail))
    }

    /// Linear interpolation between closest ranks (R's type 7, numpy's default).
    package static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard sorted.count > 1 else { return sorted.first ?? .nan }
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * weight
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64), for reproducible resampling.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
