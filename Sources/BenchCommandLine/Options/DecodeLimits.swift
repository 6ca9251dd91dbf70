import ArgumentParser
import Imaging

/// The renderers' two limits as `run`, `corpus` and `scenario` take them: the thumbnail's longest
/// side, and the decompression-bomb budget.
enum DecodeLimits {
    static func validate(maxPixel: Int, maxImagePixels: Int) throws {
        guard (16...100_000).contains(maxPixel) else {
            throw ValidationError("--max-pixel must be between 16 and 100000 (got \(maxPixel))")
        }
        guard DecodeBudget.validRange.contains(maxImagePixels) else {
            throw ValidationError(
                "--max-image-pixels must be between \(DecodeBudget.validRange.lowerBound) and \(DecodeBudget.validRange.upperBound) (got \(maxImagePixels))"
            )
        }
    }
}
