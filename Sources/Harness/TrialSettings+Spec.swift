import BenchCore
import Foundation

extension TrialSettings {
    /// The spec of one run of `cell` against `url`, with these settings: what every runner sends a child.
    package func spec(for cell: TrialCell, run: Int, url: URL, warmupURL: URL?, workDirectory: URL) -> TrialSpec {
        var spec = TrialSpec(
            strategy: cell.strategy,
            render: cell.render,
            allocator: cell.allocator,
            run: run,
            url: url,
            warmupURL: warmupURL,
            workDirectory: workDirectory,
            maxPixel: maxPixel,
            sampleIntervalNanos: sampleIntervalNanos,
            timeoutSeconds: timeoutSeconds
        )
        spec.maxImagePixels = maxImagePixels
        spec.holderThresholdBytes = holderThresholdBytes
        if settleIsFixed { spec.settleQuietNanos = nil }
        if residencyIsOff { spec.residencyOff = true }
        return spec
    }

    /// `--settle`'s values and `BENCH_SETTLE`'s: the settle rule (the default) or the fixed pause.
    package enum Settle: String, CaseIterable, Sendable {
        case rule, fixed
    }

    /// `--residency`'s values and `BENCH_RESIDENCY`'s: snapshots on (the default) or off.
    package enum Residency: String, CaseIterable, Sendable {
        case on, off
    }

    /// `BENCH_RESIDENCY=off` in this process's environment: the default of `--residency`.
    package static var environmentResidencyIsOff: Bool {
        ProcessInfo.processInfo.environment[TrialSpec.residencyEnvironmentVariable] == Residency.off.rawValue
    }

    /// `BENCH_SETTLE=fixed` in this process's environment: the default of `--settle`.
    package static var environmentSettleIsFixed: Bool {
        ProcessInfo.processInfo.environment[TrialSpec.settleEnvironmentVariable] == Settle.fixed.rawValue
    }
}

extension URL {
    /// Whether the host is loopback: 127.0.0.0/8 (four decimal octets), localhost or ::1.
    package var isLoopback: Bool {
        guard let host = host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else {
            return false
        }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return host == "localhost" || host == "::1"
            || (octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil })
    }

    /// The root of this URL's origin (scheme, host and port): where a child warms up, so that the
    /// session, the connection and libcurl are set up against the server that is measured.
    package var originRoot: URL {
        var components = URLComponents()
        components.scheme = scheme
        components.host = host
        components.port = port
        components.path = "/"
        return components.url ?? self
    }
}
