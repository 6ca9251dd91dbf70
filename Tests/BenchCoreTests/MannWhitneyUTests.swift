import BenchCore
import Testing

/// Reference values from scipy 1.17.1: `mannwhitneyu(x, y, alternative="greater", method=...)` without ties,
/// `permutation_test` over the observed values (exact enumeration) with ties.
@Suite struct MannWhitneyUTests {
    func test(_ x: [Double], _ y: [Double]) throws -> MannWhitneyU {
        try #require(MannWhitneyU.greater(x, than: y))
    }

    @Test func completeSeparationOfThreeAgainstThreeIsOneArrangementInTwenty() throws {
        let result = try test([4, 5, 6], [1, 2, 3])
        #expect(result.u == 9)
        #expect(result.method == .exact)
        #expect(abs(result.pValue - 0.05) < 1e-12)
    }

    @Test func exactDistributionMatchesScipy() throws {
        let overlapping = try test([1.1, 2.2, 3.3, 4.4, 5.5], [0.5, 1.5, 2.5, 3.5, 4.5, 6.5, 7.5])
        #expect(overlapping.u == 15)
        #expect(abs(overlapping.pValue - 0.6805555555555555) < 1e-12)

        let oneOutlierInTheReference = try test([10, 11, 12, 13, 14], [1, 2, 3, 4, 5, 6, 7, 8, 9, 15])
        #expect(oneOutlierInTheReference.u == 45)
        #expect(abs(oneOutlierInTheReference.pValue - 0.006327006327006327) < 1e-12)
    }

    /// RSS comes in pages, so runs tie. Complete separation of 5 runs from 5 is one split in
    /// C(10, 5) = 252 whatever the ties inside each side: p = 1/252 = 0.00397, below the gate's
    /// 0.005. The normal approximation gives 0.0052 here, and at best 0.0061
    /// with other tie patterns: the level was unreachable.
    @Test func completeSeparationWithTiesIsOneSplitInTwoHundredFiftyTwo() throws {
        let result = try test([60, 60, 61, 61, 62], [26, 26, 26, 27, 27])
        #expect(result.u == 25)
        #expect(result.method == .exact)
        #expect(abs(result.pValue - 1.0 / 252) < 1e-15)
        #expect(result.pValue < 0.005)
        #expect(abs(MannWhitneyU.smallestPValue([60, 60, 61, 61, 62], [26, 26, 26, 27, 27]) - 1.0 / 252) < 1e-15)
    }

    /// Known answers counted by hand over the 252 splits, and from scipy 1.17.1's
    /// `permutation_test(..., mannwhitneyu statistic, permutation_type='independent', n_resamples=inf)`.
    @Test func tiesUseTheExactPermutationDistribution() throws {
        // 42 of 252 splits give U >= 18.
        let asymmetric = try test([2, 2, 3, 4, 5], [1, 2, 2, 3, 3])
        #expect(asymmetric.u == 18)
        #expect(asymmetric.method == .exact)
        #expect(abs(asymmetric.pValue - 42.0 / 252) < 1e-15)
        // A half-integer U: 30 of 252.
        let half = try test([3, 3, 4, 4, 4], [1, 2, 3, 3, 4])
        #expect(half.u == 19.5)
        #expect(abs(half.pValue - 0.11904761904761904) < 1e-15)
        // 756 of C(12, 5) = 792.
        let heavy = try test([1, 1, 1, 2, 2], [1, 1, 2, 2, 2, 2, 3])
        #expect(heavy.u == 11)
        #expect(abs(heavy.pValue - 0.9545454545454546) < 1e-15)
    }

    /// A tie across the two samples at the top: the sample can only take 5 of the 6 tied values,
    /// C(6, 5) = 6 splits of 252 reach the largest U, so no arrangement of these values can go
    /// below 6/252 = 0.0238. The gate must know that (its "too few runs" warning).
    @Test func smallestPValueFollowsTheTiesAcrossTheSamples() throws {
        let sample: [Double] = [100, 100, 100, 100, 100]
        let reference: [Double] = [1, 1, 1, 1, 100]
        let result = try test(sample, reference)
        #expect(result.u == 22.5)
        #expect(abs(result.pValue - 6.0 / 252) < 1e-15)
        #expect(abs(MannWhitneyU.smallestPValue(sample, reference) - 6.0 / 252) < 1e-15)
        // Without ties across the samples, it is 1 / C(n1 + n2, n1).
        #expect(abs(MannWhitneyU.smallestPValue([5, 5, 6], [1, 1, 2, 3]) - 1.0 / 35) < 1e-15)
        #expect(MannWhitneyU.smallestPValue([7, 7], [7, 7, 7]) == 1)
    }

    /// The dynamic programme against a plain enumeration of every split, on pooled values with
    /// many ties (a fixed list of cases, so the test is deterministic).
    @Test func permutationDistributionMatchesEnumeratingEverySplit() throws {
        let cases: [([Double], [Double])] = [
            ([1, 2, 2, 3], [2, 3, 3, 4, 4, 1]),
            ([5, 5, 5], [5, 4, 6, 6]),
            ([1, 1, 2, 2, 3, 3], [1, 2, 3, 4]),
            ([9, 8, 8, 7, 7, 7], [7, 7, 8, 9, 9, 9, 10]),
            ([4096, 8192, 8192, 12288, 4096], [0, 4096, 4096, 8192, 4096, 0, 8192, 12288, 16384, 4096]),
        ]
        for (sample, reference) in cases {
            let pooled = sample + reference
            var atLeast = 0
            var splits = 0
            let observed = MannWhitneyU.twiceUStatistic(sample, reference)
            // Every subset of n1 indices of the pooled values.
            for mask in 0..<(1 << pooled.count) where mask.nonzeroBitCount == sample.count {
                let chosen = pooled.indices.filter { mask & (1 << $0) != 0 }.map { pooled[$0] }
                let rest = pooled.indices.filter { mask & (1 << $0) == 0 }.map { pooled[$0] }
                splits += 1
                if MannWhitneyU.twiceUStatistic(chosen, rest) >= observed { atLeast += 1 }
            }
            let result = try test(sample, reference)
            #expect(result.method == .exact)
            #expect(abs(result.pValue - Double(atLeast) / Double(splits)) < 1e-12, "\(sample) vs \(reference)")
        }
    }

    @Test func largeSamplesWithoutTiesAreStillExact() throws {
        let x = (1...25).map(Double.init)
        let y = stride(from: 2.5, through: 40.5, by: 2).map { $0 }
        let result = try test(x, y)
        #expect(result.u == 144)
        #expect(result.method == .exact)
        #expect(abs(result.pValue - 0.9930331074335536) < 1e-12)  // scipy, method="exact"
    }

    /// Beyond the exact count's cost limit (40 against 40); these values tie (odd numbers), and
    /// scipy's `asymptotic` applies the same tie correction.
    @Test func veryLargeSamplesUseTheNormalApproximation() throws {
        let x = (1...90).map(Double.init)
        let y = stride(from: 3.0, through: 181, by: 2).map { $0 }
        let result = try test(x, y)
        #expect(result.u == 1958)
        #expect(result.method == .normal)
        #expect(abs(result.pValue - 0.9999999989289879) < 1e-12)  // scipy, method="asymptotic"
    }

    @Test func identicalSamplesAreNeverSignificant() throws {
        let result = try test([7, 7, 7], [7, 7, 7, 7])
        #expect(result.pValue == 1)
    }

    @Test func emptySampleHasNoTest() {
        #expect(MannWhitneyU.greater([], than: [1, 2]) == nil)
        #expect(MannWhitneyU.greater([1], than: []) == nil)
    }

    @Test func smallestPValueIsOneOverTheNumberOfArrangements() {
        #expect(abs(MannWhitneyU.smallestPValue(n1: 3, n2: 3) - 1.0 / 20) < 1e-15)
        #expect(abs(MannWhitneyU.smallestPValue(n1: 5, n2: 10) - 1.0 / 3003) < 1e-15)
        #expect(abs(MannWhitneyU.smallestPValue(n1: 1, n2: 5) - 1.0 / 6) < 1e-15)
    }

    @Test func tiedValuesShareTheMeanOfTheirRanks() {
        #expect(MannWhitneyU.midranks([30, 10, 20, 20]) == [4, 1, 2.5, 2.5])
    }

    /// Without ties, P(U >= u) + P(U <= u - 1) = 1, and U is symmetric about n1 n2 / 2.
    @Test func exactTailsOfTheTwoDirectionsAddUp() throws {
        let x: [Double] = [3, 8, 9, 12]
        let y: [Double] = [1, 2, 5, 6, 10]
        let greater = try test(x, y)
        let less = try test(y, x)
        #expect(greater.u + less.u == 20)
        #expect(abs(greater.pValue - 0.14285714285714285) < 1e-12)
        let pointMass =
            MannWhitneyU.exactUpperTail(u: Int(greater.u), n1: 4, n2: 5)
            - MannWhitneyU.exactUpperTail(u: Int(greater.u) + 1, n1: 4, n2: 5)
        #expect(abs(greater.pValue + less.pValue - 1 - pointMass) < 1e-12)
    }
}
