import Foundation

/// One-sided Mann-Whitney U test (Wilcoxon rank-sum): is `sample` stochastically greater than `reference`?
///
/// The gate uses it so that a regression must show in the runs as a whole, not in one
/// noisy run: it compares ranks, so a single outlier moves the statistic by at most one step
/// per reference run, whatever its size.
///
/// The p-value is exact, ties included: it is the permutation distribution of U over the
/// observed values (every way of splitting the pooled runs into n1 and n2 equally likely),
/// counted by dynamic programming over the groups of tied values, never sampled. RSS comes in
/// pages, so runs tie; the normal approximation scipy and most tools fall back to then cannot
/// go below p = 0.0061 with 5 runs against 5, above the gate's level of 0.005, while the exact
/// answer for complete separation is 1 / C(10, 5) = 1/252 = 0.00397.
package struct MannWhitneyU: Sendable, Equatable {
    package enum Method: String, Sendable {
        /// The exact permutation distribution of U over the observed values, ties included.
        case exact
        /// Normal approximation with tie and continuity corrections (scipy's `asymptotic`),
        /// only for samples too large for the exact count (never at the gate's sizes).
        case normal
    }

    /// Pairs (s, r) with s > r, ties counted one half.
    package var u: Double
    /// P(U >= observed) when both samples come from the same distribution.
    package var pValue: Double
    package var method: Method

    /// The exact count costs about (values + groups) x (n1 + 1) x (2 n1 n2 + 1) steps; above this
    /// many the normal approximation is used. 10 against 10 costs 1e5, 40 against 40 about 2e7.
    static let exactWorkLimit = 25_000_000.0

    /// nil when either sample is empty.
    package static func greater(_ sample: [Double], than reference: [Double]) -> MannWhitneyU? {
        guard !sample.isEmpty, !reference.isEmpty else { return nil }
        let n1 = sample.count
        let n2 = reference.count
        let twiceU = twiceUStatistic(sample, reference)
        let u = Double(twiceU) / 2
        let groups = tieGroups(sample + reference)

        if let distribution = PermutationDistribution(groupSizes: groups, sampleCount: n1) {
            return MannWhitneyU(u: u, pValue: distribution.upperTail(atLeast: twiceU), method: .exact)
        }
        let n = Double(n1 + n2)
        let tieTerm = groups.reduce(0.0) { $0 + Double($1 * $1 * $1 - $1) } / (n * (n - 1))
        let variance = Double(n1 * n2) / 12 * ((n + 1) - tieTerm)
        guard variance > 0 else { return MannWhitneyU(u: u, pValue: 1, method: .normal) }  // every value equal
        let z = (u - Double(n1 * n2) / 2 - 0.5) / variance.squareRoot()
        return MannWhitneyU(u: u, pValue: 0.5 * erfc(z / 2.0.squareRoot()), method: .normal)
    }

    /// The smallest p-value the test can give for these observed values: P(U >= its largest
    /// possible value), with the pooled values' ties as they are. Without ties it is
    /// 1 / C(n1 + n2, n1); ties across the two samples can only raise it. When it is above the
    /// significance level, the test cannot confirm anything, whatever the runs show.
    package static func smallestPValue(_ sample: [Double], _ reference: [Double]) -> Double {
        guard !sample.isEmpty, !reference.isEmpty else { return 1 }
        let groups = tieGroups(sample + reference)
        guard let distribution = PermutationDistribution(groupSizes: groups, sampleCount: sample.count) else {
            return smallestPValue(n1: sample.count, n2: reference.count)
        }
        return distribution.upperTail(atLeast: distribution.largestTwiceU)
    }

    /// The smallest p-value of samples of these sizes without ties (all of one above all of the other).
    package static func smallestPValue(n1: Int, n2: Int) -> Double {
        guard n1 > 0, n2 > 0 else { return 1 }
        // 1 / C(n1 + n2, n1), built up as a product to stay in range.
        var p = 1.0
        for i in 1...n1 { p *= Double(i) / Double(n2 + i) }
        return p
    }

    /// 2U, an integer: each pair (s, r) counts 2 when s > r and 1 when they tie.
    package static func twiceUStatistic(_ sample: [Double], _ reference: [Double]) -> Int {
        var twice = 0
        for s in sample {
            for r in reference where s >= r { twice += s > r ? 2 : 1 }
        }
        return twice
    }

    /// Sizes of the groups of equal values, in ascending order of value.
    static func tieGroups(_ values: [Double]) -> [Int] {
        let sorted = values.sorted()
        var sizes: [Int] = []
        var previous: Double?
        for value in sorted {
            if value == previous { sizes[sizes.count - 1] += 1 } else { sizes.append(1) }
            previous = value
        }
        return sizes
    }

    /// Ranks 1...n in sorted order, tied values sharing the mean of their ranks.
    package static func midranks(_ values: [Double]) -> [Double] {
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

    /// P(U >= u) for n1 + n2 distinct values (the permutation distribution with every group of size 1).
    package static func exactUpperTail(u: Int, n1: Int, n2: Int) -> Double {
        let distribution = PermutationDistribution(groupSizes: Array(repeating: 1, count: n1 + n2), sampleCount: n1)!
        return distribution.upperTail(atLeast: 2 * u)
    }
}

/// The distribution of 2U over every split of the pooled values into `sampleCount` sample values
/// and the rest, each split equally likely, for pooled values that fall into groups of equal
/// values (sizes in ascending order of value).
///
/// Dynamic programming over the groups: taking `a` of a group's `t` values into the sample, when
/// `i` sample values were taken from the lower groups (so `below - i` reference values lie below),
/// can be done in C(t, a) ways and adds a x (2 (below - i) + (t - a)) to 2U: each of the `a` values
/// is above every lower reference value and ties with the group's `t - a` reference values.
struct PermutationDistribution {
    /// ways[s]: the number of splits with 2U = s.
    let ways: [Double]
    let total: Double

    /// nil when the count would be too expensive (then use the normal approximation).
    init?(groupSizes: [Int], sampleCount n1: Int) {
        let n = groupSizes.reduce(0, +)
        let n2 = n - n1
        guard n1 > 0, n2 > 0 else { return nil }
        let maxTwiceU = 2 * n1 * n2
        let work = Double(n + groupSizes.count) * Double(n1 + 1) * Double(maxTwiceU + 1)
        guard work <= MannWhitneyU.exactWorkLimit else { return nil }

        // counts[i][s]: ways to take i sample values from the groups so far with 2U = s so far.
        var counts = [[Double]](repeating: [Double](repeating: 0, count: maxTwiceU + 1), count: n1 + 1)
        counts[0][0] = 1
        var below = 0
        for size in groupSizes {
            var next = [[Double]](repeating: [Double](repeating: 0, count: maxTwiceU + 1), count: n1 + 1)
            let binomials = Self.binomials(size)
            for i in 0...min(n1, below) {
                // The reference values below must fit in n2.
                guard below - i <= n2 else { continue }
                for a in 0...min(size, n1 - i) {
                    let b = size - a
                    guard below - i + b <= n2 else { continue }
                    let add = a * (2 * (below - i) + b)
                    let ways = binomials[a]
                    let row = counts[i]
                    for s in 0...(maxTwiceU - add) where row[s] != 0 {
                        next[i + a][s + add] += row[s] * ways
                    }
                }
            }
            counts = next
            below += size
        }
        ways = counts[n1]
        total = ways.reduce(0, +)
    }

    /// The largest 2U any split can give.
    var largestTwiceU: Int { ways.lastIndex { $0 != 0 } ?? 0 }

    func upperTail(atLeast twiceU: Int) -> Double {
        let from = min(max(twiceU, 0), ways.count)
        return ways[from...].reduce(0, +) / total
    }

    /// C(t, 0) ... C(t, t).
    static func binomials(_ t: Int) -> [Double] {
        var row = [1.0]
        for _ in 0..<t { row = zip(row + [0], [0] + row).map { $0 + $1 } }
        return row
    }
}
