import ArgumentParser

/// A bandwidth on the command line: bytes per second, with an optional k, M or G suffix
/// (decimal: 1M = 1,000,000 bytes per second), e.g. `--bandwidth 20M`.
struct ByteRate: ExpressibleByArgument {
    var bytesPerSecond: Int

    init?(argument: String) {
        var text = argument.lowercased()
        for suffix in ["/s", "b", "bps"] where text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        let multipliers: [Character: Double] = ["k": 1e3, "m": 1e6, "g": 1e9]
        var multiplier = 1.0
        if let last = text.last, let value = multipliers[last] {
            multiplier = value
            text.removeLast()
        }
        guard let number = Double(text), number > 0, number * multiplier >= 1 else { return nil }
        bytesPerSecond = Int(number * multiplier)
    }

    static var defaultValueDescription: String { "unthrottled" }
}
