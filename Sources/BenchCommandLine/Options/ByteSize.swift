import ArgumentParser

/// One rule for every byte count and byte rate on the command line (`--cache-limit`,
/// `--memory-limit`, `--holder-threshold`, `--bandwidth`): plain digits are bytes; k, M, G, T are
/// decimal (10^3, 10^6, 10^9, 10^12); Ki, Mi, Gi, Ti are binary (2^10, 2^20, 2^30, 2^40). Letters in
/// any case (20m is 20M, 20mi is 20Mi), an optional trailing B (20MB, 20MiB); a fraction before a
/// suffix (1.5G) is rounded down to whole bytes.
///
/// Only plain decimals are numbers here: Double("inf"), Double("nan") and Double("0x10") all parse,
/// and a Swift Double-to-Int conversion of inf, NaN or anything above Int.max traps.
enum ByteSize {
    /// The rule, said once in every byte-size option's help and in the README.
    static let rule = "k, M, G = 10^3, 10^6, 10^9 bytes; Ki, Mi, Gi = 2^10, 2^20, 2^30 bytes; plain digits = bytes"

    /// Longest suffixes first: "mi" before "m" (and "i" alone is not a suffix).
    static let multipliers: [(suffix: String, value: Double)] = [
        ("ki", 1024), ("mi", 1_048_576), ("gi", 1_073_741_824), ("ti", 1_099_511_627_776),
        ("k", 1e3), ("m", 1e6), ("g", 1e9), ("t", 1e12),
    ]

    /// The number of bytes `argument` says, within `range`, or a ValidationError naming `option`,
    /// the value given, `example` and the rule. `perSecond` also takes a rate's "/s" ("20M/s").
    static func parse(
        _ argument: String,
        option: String,
        range: ClosedRange<Int>,
        example: String,
        perSecond: Bool = false
    ) throws -> Int {
        let what = perSecond ? "a number of bytes per second" : "a number of bytes"
        var text = argument.lowercased().trimmingCharacters(in: .whitespaces)
        if perSecond {
            for suffix in ["/s", "ps"] where text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        }
        if text.hasSuffix("b") { text.removeLast() }
        var multiplier = 1.0
        if let (suffix, value) = multipliers.first(where: { text.hasSuffix($0.suffix) }) {
            multiplier = value
            text.removeLast(suffix.count)
        }
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || ".e+-".contains($0)) }),
            let number = Double(text)
        else {
            throw ValidationError("\(option) '\(argument)' is not \(what); expected e.g. \(example) (\(rule))")
        }
        let bytes = (number * multiplier).rounded(.down)
        guard bytes.isFinite, bytes >= Double(range.lowerBound), bytes <= Double(range.upperBound) else {
            throw ValidationError(
                "\(option) '\(argument)' is out of range: \(what) from \(range.lowerBound) to \(range.upperBound) "
                    + "(\(rule))"
            )
        }
        return Int(bytes)
    }
}
