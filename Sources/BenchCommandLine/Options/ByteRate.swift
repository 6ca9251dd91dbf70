import ArgumentParser

/// A bandwidth on the command line: bytes per second, with an optional k, M or G suffix
/// (decimal: 1M = 1,000,000 bytes per second), e.g. `--bandwidth 20M`.
///
/// Parsed through `ByteRate.parse` (the options use it as their transform) so that a bad
/// value says why: "inf", "nan", "1e30" or "-5" are refused with exit 64, never converted
/// (a Swift Double-to-Int conversion of inf, NaN or anything above Int.max traps).
struct ByteRate: ExpressibleByArgument, Equatable {
    var bytesPerSecond: Int

    /// 1 TB/s: far above anything a loopback socket carries, far below Int.max.
    static let maximumBytesPerSecond = 1e12
    static let expected = "a number of bytes per second from 1 to 1T with an optional k, M or G suffix, e.g. 500k, 20M or 1.5G"

    init(bytesPerSecond: Int) { self.bytesPerSecond = bytesPerSecond }

    init?(argument: String) {
        guard let rate = try? ByteRate.parse(argument) else { return nil }
        self = rate
    }

    static func parse(_ argument: String) throws -> ByteRate {
        var text = argument.lowercased().trimmingCharacters(in: .whitespaces)
        for suffix in ["/s", "bps", "b"] where text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        let multipliers: [Character: Double] = ["k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12]
        var multiplier = 1.0
        if let last = text.last, let value = multipliers[last] {
            multiplier = value
            text.removeLast()
        }
        // Double("inf"), Double("nan") and Double("0x10") all parse: accept plain decimals only.
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || ".e+-".contains($0)) }),
              let number = Double(text) else {
            throw ValidationError("'\(argument)' is not a bandwidth; expected \(expected)")
        }
        let bytes = number * multiplier
        guard bytes.isFinite, bytes >= 1, bytes <= maximumBytesPerSecond else {
            throw ValidationError("bandwidth '\(argument)' is out of range; expected \(expected)")
        }
        return ByteRate(bytesPerSecond: Int(bytes))
    }

    static var defaultValueDescription: String { "unthrottled" }
}
