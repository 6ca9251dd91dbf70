import BenchCore
import Testing

@Suite struct CSVTests {
    /// "\r\n" is one Character in Swift: a field holding it must still be quoted, or the row breaks in two.
    @Test(arguments: ["a\r\nb", "a\nb", "a\rb", "a,b", "a\"b"])
    func fieldsWithLineBreaksOrSeparatorsAreQuotedAndRoundTrip(field: String) throws {
        let line = CSV.line(["x", field, "y"])
        #expect(line.hasPrefix("x,\""))
        let rows = try CSV.parse(line + "\n")
        #expect(rows.count == 1)
        #expect(
            rows.first == [
                "x", field.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: ""), "y",
            ]
                || rows.first == ["x", field, "y"]
        )
    }
}
