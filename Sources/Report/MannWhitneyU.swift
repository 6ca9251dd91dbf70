import Foundation

/// One-sided Mann-Whitney U test (Wilcoxon rank-sum): is `sample` stochastically greater than `reference`?
///
/// The gate uses it so that a regression must show in the runs as a whole, not in one
/// noisy run: it compares ranks, so a single outlier moves the statistic by at most one step
/// per reference run, whatever its size.
public struct MannWhitneyU: Sendable, Equatable {
    public enum Method: String, Sendable {
        /// The exact permutation distribution of U (no ties, small samples).
        case exact
        /// Normal approximation with tie and continuity corrections (scipy's `asymptotic`).
        case normal
    }

    /// Pairs (s, r) with s > r, ties counted one half.
    public var u: Double
    /// P(U >= observed) when both samples come from the same distribution.
    public var pValue: Double
    public var method: Method

    /// Samples at most this large in total, without ties, use the exact distribution.
    static let exactLimit = 40

    /// nil when either sample is empty.
    public static func greater(_ sample: [Double], than reference: [Double]) -> MannWhitneyU? {
        guard !sample.isEmpty, !reference.isEmpty else { return nil }
        let ranks = midranks(sample + reference)
        let n1 = sample.count, n2 = reference.count
        let rankSum = ranks.prefix(n1).reduce(0, +)
        let u = rankSum - Double(n1 * (n1 + 1)) / 2
        let tieSizes = Dictionary(grouping: sample + reference, by: { $0 }).values.map(\.count).filter { $0 > 1 }

        if tieSizes.isEmpty && n1 + n2 <= exactLimit {
            return MannWhitneyU(u: u, pValue: exactUpperTail(u: Int(u), n1: n1, n2: n2), method: .exact)
        }
        let n = Double(n1 + n2)
        let tieTerm = tieSizes.reduce(0.0) { $0 + Double($1 * $1 * $1 - $1) } / (n * (n - 1))
        let variance = Double(n1 * n2) / 12 * ((n + 1) - tieTerm)
        guard variance > 0 else { return MannWhitneyU(u: u, pValue: 1, method: .normal) }  // every value equal
        let z = (u - Double(n1 * n2) / 2 - 0.5) / variance.squareRoot()
        return MannWhitneyU(u: u, pValue: 0.5 * erfc(z / 2.0.squareRoot()), method: .normal)
    }

    /// The smallest p-value samples of these sizes can reach (all of one above all of the other).
    /// When it is above the significance level, the test cannot confirm anything.
    public static func smallestPValue(n1: Int, n2: Int) -> Double {
        guard n1 > 0, n2 > 0 else { return 1 }
        // 1 / C(n1 + n2, n1), built up as a product to stay in range.
        var p = 1.0
        for i in 1...n1 { p *= Double(i) / Double(n2 + i) }
        return p
    }

    /// Ranks 1...n in sorted order, tied values sharing the mean of their ranks.
    static func midranks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count && values[order[end + 1]] == values[order[start]] { end += 1 }
            let shared = Double(start + end) / 2 + 1
            for position in start...end { ranks[order[position]] = shared }
            start = end + 1
        }
        return ranks
    }

    /// P(U >= u) from the count of arrangements of n1 + n2 distinct values giving each U.
    static func exactUpperTail(u: Int, n1: Int, n2: Int) -> Double {
        // counts[i][j][k]: arrangements of i sample and j reference values with U = k.
        // The largest value is either a sample value (adds j to U) or a reference value (adds 0).
        var counts = [[[Double]]](repeating: [[Double]](repeating: [], count: n2 + 1), count: n1 + 1)
        for i in 0...n1 {
            for j in 0...n2 {
                var row = [Double](repeating: 0, count: i * j + 1)
                if i == 0 || j == 0 {
                    row[0] = 1
                } else {
                    for (k, count) in counts[i - 1][j].enumerated() { row[k + j] += count }
                    for (k, count) in counts[i][j - 1].enumerated() { row[k] += count }
                }
                counts[i][j] = row
            }
        }
        let distribution = counts[n1][n2]
        let total = distribution.reduce(0, +)
        return distribution[min(max(u, 0), distribution.count - 1)...].reduce(0, +) / total
    }
}
