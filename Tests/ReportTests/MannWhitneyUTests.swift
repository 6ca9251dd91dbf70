import Testing
@testable import Report

/// Reference values from scipy 1.17.1: `mannwhitneyu(x, y, alternative="greater", method=...)`.
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

    @Test func tiesUseTheCorrectedNormalApproximation() throws {
        let result = try test([2, 2, 3, 4, 5], [1, 2, 2, 3, 3])
        #expect(result.u == 18)
        #expect(result.method == .normal)
        #expect(abs(result.pValue - 0.13745791835268278) < 1e-12)
    }

    @Test func largeSamplesUseTheNormalApproximation() throws {
        let x = (1...25).map(Double.init)
        let y = stride(from: 3.0, through: 41, by: 2).map { $0 }
        let result = try test(x, y)
        #expect(result.u == 138)
        #expect(result.method == .normal)
        #expect(abs(result.pValue - 0.9949253012540534) < 1e-12)
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
        let x: [Double] = [3, 8, 9, 12], y: [Double] = [1, 2, 5, 6, 10]
        let greater = try test(x, y), less = try test(y, x)
        #expect(greater.u + less.u == 20)
        #expect(abs(greater.pValue - 0.14285714285714285) < 1e-12)
        let pointMass = MannWhitneyU.exactUpperTail(u: Int(greater.u), n1: 4, n2: 5)
            - MannWhitneyU.exactUpperTail(u: Int(greater.u) + 1, n1: 4, n2: 5)
        #expect(abs(greater.pValue + less.pValue - 1 - pointMass) < 1e-12)
    }
}
