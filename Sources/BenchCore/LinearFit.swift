/// Ordinary least squares line through (x, y) points: y = slope * x + intercept.
package struct LinearFit: Sendable, Equatable {
    package var slope: Double
    package var intercept: Double

    /// nil with fewer than two distinct x values.
    package init?(_ points: [(x: Double, y: Double)]) {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n
        let meanY = points.reduce(0) { $0 + $1.y } / n
        let sxx = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        guard sxx > 0 else { return nil }
        let sxy = points.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) }
        slope = sxy / sxx
        intercept = meanY - slope * meanX
    }

    package func callAsFunction(_ x: Double) -> Double { slope * x + intercept }
}
