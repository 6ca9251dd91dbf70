import Testing

/// Every numeric option of every command refuses inf, NaN, negative, overflowing and
/// out-of-range values with exit 64 and a message naming the option; none traps
/// (`Int(Double.infinity)` on an unchecked value kills `bench --bandwidth inf` with SIGILL).
@Suite struct NumericOptionTests {
    static let scenario = ["scenario", "list-scroll", "--sizes", "64x48", "--rows", "4", "--visible", "2"]

    static let cases: [(arguments: [String], mentions: String)] = [
        (["--bandwidth", "inf"], "--bandwidth"), (["--bandwidth", "1e30"], "--bandwidth"),
        (["--bandwidth", "nan"], "--bandwidth"), (["--bandwidth", "-5M"], "--bandwidth"),
        (["--bandwidth", "0x10"], "--bandwidth"), (["--bandwidth", "1e30G"], "--bandwidth"),
        (["--runs", "-1"], "--runs"), (["--runs", "99999999999999999999999"], "--runs"),
        (["--timeout", "inf"], "--timeout"), (["--timeout", "nan"], "--timeout"), (["--timeout", "-1"], "--timeout"),
        (["--sample-interval-us", "0"], "--sample-interval-us"), (["--max-pixel", "-3"], "--max-pixel"),
        (["--max-image-pixels", "0"], "--max-image-pixels"), (["--max-image-pixels", "1e9"], "--max-image-pixels"),
        (["--width", "999999"], "--width"), (["--height", "inf"], "--height"), (["--quality", "101"], "--quality"),
        (["serve", "--bandwidth", "inf"], "--bandwidth"), (["serve", "--port", "70000"], "--port"),
        (["serve", "--seconds", "inf"], "--seconds"), (["serve", "--seconds", "nan"], "--seconds"),
        (["serve", "--seconds", "-1"], "--seconds"), (["serve", "--max-connections", "0"], "--max-connections"),
        (["serve", "--request-timeout", "nan"], "--request-timeout"),
        (["serve", "--idle-timeout", "inf"], "--idle-timeout"),
        (scenario + ["--bandwidth", "inf"], "--bandwidth"), (scenario + ["--bandwidth", "1e30"], "--bandwidth"),
        (scenario + ["--speed", "1e-300"], "--speed"), (scenario + ["--speed", "nan"], "--speed"),
        (scenario + ["--speed", "inf"], "--speed"), (scenario + ["--rows", "10001"], "--rows"),
        (scenario + ["--cache-limit", "1e30"], "--cache-limit"),
        (scenario + ["--memory-limit", "inf"], "--memory-limit"),
        (scenario + ["--timeout", "inf"], "--timeout"),
        (scenario + ["--max-image-pixels", "-1"], "--max-image-pixels"),
        (["scenario", "list-scroll", "--sizes", "1e30x5"], "--sizes"),
        (["sweep", "--sizes", "inf"], "--sizes"), (["sweep", "--sizes", "nan"], "--sizes"),
        (["sweep", "--runs", "0"], "--runs"),
        (["fixture", "--width", "-1"], "--width"),
    ]

    @Test(arguments: cases.indices)
    func badNumbersExit64NamingTheOption(index: Int) {
        let (arguments, mentions) = Self.cases[index]
        // Every case fails validation, before any fixture is made or child started.
        let output = InProcessBench.parse(arguments)
        #expect(output.status == 64, "\(arguments): status \(output.status): \(output.standardError.suffix(400))")
        #expect(output.standardError.contains(mentions), "\(arguments): \(output.standardError.prefix(400))")
    }
}
