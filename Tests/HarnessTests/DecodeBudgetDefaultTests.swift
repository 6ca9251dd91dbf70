import BenchCore
import Imaging
import Testing

/// The core states the decoder's default budget without importing Imaging: the two must agree,
/// or a spec made with defaults would let the child decode more (or less) than the decoder would.
@Test func theSpecsDefaultBudgetIsTheDecodersDefault() {
    #expect(TrialSpec.defaultMaxImagePixels == DecodeBudget.defaultMaxImagePixels)
}
