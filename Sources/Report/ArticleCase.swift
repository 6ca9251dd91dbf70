import BenchCore

/// The four cells the article measured, in the order of its table, with its figure for each.
public struct ArticleCase: Sendable, Equatable {
    public var strategy: String
    public var render: RenderMode
    public var title: String

    public var articleBytes: Int { ArticleReference.overBaselineBytes(strategy: strategy, render: render)! }

    public static let all = [
        ArticleCase(strategy: "data", render: .none, title: "data task"),
        ArticleCase(strategy: "download", render: .none, title: "download task"),
        ArticleCase(strategy: "data", render: .full, title: "data task + render"),
        ArticleCase(strategy: "download", render: .full, title: "download task + render"),
    ]

    public func cell(_ allocator: Allocator) -> TrialCell {
        TrialCell(strategy: strategy, render: render, allocator: allocator)
    }
}

extension Allocator {
    /// What the allocator is called in charts and tables.
    public var title: String {
        switch self {
        case .system: return "glibc malloc"
        case .jemalloc: return "jemalloc"
        }
    }
}

extension TrialCell {
    /// "data + full", "download (fetch only)": the strategy and renderer without the allocator.
    public var caseTitle: String {
        render == .none ? "\(strategy) (fetch only)" : "\(strategy) + \(render.rawValue)"
    }
}
