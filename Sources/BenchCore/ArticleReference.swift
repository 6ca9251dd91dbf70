/// The article's figures (iOS, Xcode's memory gauge, over a 52 MB idle baseline), in bytes,
/// for the cells it measured. Shown beside ours; results/REPORT.md, "The article's claims", says what it claims.
package enum ArticleReference {
    package static let payloadBytes = 13_100_000
    package static let imageWidth = 6000
    package static let imageHeight = 4000
    package static let bitmapBytes = imageWidth * imageHeight * 4
    /// The idle app the article's gauge read before any fetch.
    package static let idleAppBytes = 52_000_000

    package static func overBaselineBytes(strategy: String, render: RenderMode) -> Int? {
        switch (strategy, render) {
        case ("data", .none): return 30_000_000
        case ("download", .none): return 4_000_000
        case ("data", .full): return 118_000_000
        case ("download", .full): return 93_000_000
        default: return nil
        }
    }
}
