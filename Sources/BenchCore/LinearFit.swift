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

extension LinearFit {
    /// The level of `intervals`' intervals, in percent.
    package static let intervalPercent = 95

    /// The slope's and the intercept's 95% intervals (Student's t with n - 2 degrees of freedom, the
    /// residuals taken as independent and alike); nil with fewer than three points or two distinct x.
    package static func intervals(
        _ points: [(x: Double, y: Double)]
    ) -> (fit: LinearFit, slope: ClosedRange<Double>, intercept: ClosedRange<Double>)? {
        guard points.count >= 3, let fit = LinearFit(points) else { return nil }
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n
        let sxx = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        let residuals = points.reduce(0) { $0 + ($1.y - fit($1.x)) * ($1.y - fit($1.x)) }
        let variance = residuals / (n - 2)
        let slopeError = (variance / sxx).squareRoot()
        let interceptError = (variance * (1 / n + meanX * meanX / sxx)).squareRoot()
        let t = studentT975(degreesOfFreedom: points.count - 2)
        return (
            fit,
            (fit.slope - t * slopeError)...(fit.slope + t * slopeError),
            (fit.intercept - t * interceptError)...(fit.intercept + t * interceptError)
        )
    }

    /// Student's t at 0.975 (two-sided 95%) for `degreesOfFreedom` >= 1: the table's values to 30,
    /// then the value of the largest tabulated df below (30, 40, 60, 120: t falls with df, so it errs wide).
    package static func studentT975(degreesOfFreedom: Int) -> Double {
        let table: [Double] = [
            12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
            2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
        ]
        switch degreesOfFreedom {
        case ...0: return .infinity
        case 1...30: return table[degreesOfFreedom - 1]
        case 31...40: return 2.042
        case 41...60: return 2.021
        case 61...120: return 2.000
        default: return 1.980
        }
    }
}
