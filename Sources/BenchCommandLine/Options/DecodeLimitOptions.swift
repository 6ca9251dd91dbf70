import ArgumentParser
import Imaging

/// The renderers' two limits, as run, corpus and scenario list-scroll take them: the thumbnail's
/// longest side (its default is the command's, `D`, and says why) and the decompression-bomb budget.
struct DecodeLimitOptions<D: DecodeLimitDefaults>: ParsableArguments {
    @Option(help: ArgumentHelp("Longest side the thumbnail renderer aims for, in pixels. \(Self.defaultsWhy)"))
    var maxPixel: Int = D.defaultMaxPixel

    @Option(
        help: ArgumentHelp(
            "Refuse to decode images whose decode would allocate more than this many RGBA pixels "
                + "(decompression bombs; Pillow's limit); \(D.overDecodeBudget)."
        )
    )
    var maxImagePixels = DecodeBudget.defaultMaxImagePixels

    /// Why the default differs by command, said the same way in each.
    static var defaultsWhy: String {
        "The default differs by command: \(RunCommand.defaultMaxPixel) in run and corpus (a detail view's thumbnail), "
            + "\(ListScrollCommand.defaultMaxPixel) in scenario list-scroll (a list row's)."
    }

    func validate() throws {
        try DecodeLimits.validate(maxPixel: maxPixel, maxImagePixels: maxImagePixels)
    }
}
