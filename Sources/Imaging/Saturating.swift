/// Byte counts from sizes a file gave: they saturate at Int.max instead of trapping, so an
/// absurd size reaches the budget check (which refuses it) rather than crashing the process.
enum Saturating {
    static func product(_ first: Int, _ rest: Int...) -> Int {
        rest.reduce(first) { total, factor in
            let (value, overflow) = total.multipliedReportingOverflow(by: factor)
            return overflow ? Int.max : value
        }
    }

    static func sum(_ first: Int, _ rest: Int...) -> Int {
        rest.reduce(first) { total, term in
            let (value, overflow) = total.addingReportingOverflow(term)
            return overflow ? Int.max : value
        }
    }
}
