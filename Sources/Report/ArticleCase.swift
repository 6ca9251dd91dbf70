import BenchCore

/// The four cells the article measured, in the order of its table, with its figure for each.
package struct ArticleCase: Sendable, Equatable {
    package var strategy: String
    package var render: RenderMode
    package var title: String

    package var articleBytes: Int { ArticleReference.overBaselineBytes(strategy: strategy, render: render)! }

    package static let all = [
        ArticleCase(strategy: "data", render: .none, title: "data task"),
        ArticleCase(strategy: "download", render: .none, title: "download task"),
        ArticleCase(strategy: "data", render: .full, title: "data task + render"),
        ArticleCase(strategy: "download", render: .full, title: "download task + render"),
    ]

    package func cell(_ allocator: Allocator) -> TrialCell {
        TrialCell(strategy: strategy, render: render, allocator: allocator)
    }
}

extension Allocator {
    /// What the allocator is called in charts and tables.
    package var title: String {
        switch self {
        case .system: return "glibc malloc"
        case .jemalloc: return "jemalloc"
        }
    }
}

extension TrialCell {
    /// "data + full", "download (fetch only)": the strategy and renderer without the allocator.
    package var caseTitle: String {
        render == .none ? "\(strategy) (fetch only)" : "\(strategy) + \(render.rawValue)"
    }
}
