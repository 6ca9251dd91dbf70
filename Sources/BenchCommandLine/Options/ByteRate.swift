import ArgumentParser

/// A bandwidth on the command line: bytes per second by the byte-size rule (`ByteSize`:
/// 20M = 20,000,000 bytes per second, 20Mi = 20,971,520), e.g. `--bandwidth 20M`.
///
/// Parsed through `ByteRate.parse` (the options use it as their transform) so that a bad
/// value says why: "inf", "nan", "1e30" or "-5" are refused with exit 64, never converted.
struct ByteRate: ExpressibleByArgument, Equatable {
    var bytesPerSecond: Int

    /// 1 TB/s: far above anything a loopback socket carries, far below Int.max.
    static let maximumBytesPerSecond = 1_000_000_000_000

    init(bytesPerSecond: Int) { self.bytesPerSecond = bytesPerSecond }

    init?(argument: String) {
        guard let rate = try? ByteRate.parse(argument) else { return nil }
        self = rate
    }

    static func parse(_ argument: String) throws -> ByteRate {
        ByteRate(
            bytesPerSecond: try ByteSize.parse(
                argument,
                option: "--bandwidth",
                range: 1...maximumBytesPerSecond,
                example: "500k, 20M or 1.5G",
                perSecond: true
            )
        )
    }

    static var defaultValueDescription: String { "unthrottled" }
}

/// `--bandwidth`: the embedded server's throttle, shared by run, serve and scenario list-scroll.
struct BandwidthOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Throttle each response of the embedded server to this many bytes per second, "
                + "e.g. 20M (\(ByteSize.rule)). (default: unthrottled)"
        ),
        transform: { try ByteRate.parse($0) }
    )
    var bandwidth: ByteRate?

    var bytesPerSecond: Int? { bandwidth?.bytesPerSecond }
}
