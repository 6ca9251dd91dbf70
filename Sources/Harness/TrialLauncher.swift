import BenchCore
import CLoopbackGuard
import Foundation
import Probe

/// Runs one trial somewhere and returns its row. The seam between the parent and its
/// children: the real one spawns a process, tests may inject their own. Sendable: with --jobs,
/// several worker threads launch through it at once.
package protocol TrialLauncher: Sendable {
    func launch(_ spec: TrialSpec) -> TrialResult
}

/// Runs each trial in a fresh child: `bench _trial --spec-file <work>/child-spec.json` (`ChildSpec`), report on fd 3.
package struct ChildProcessLauncher: TrialLauncher {
    /// The hidden subcommand the child runs.
    package static let trialSubcommand = "_trial"

    package var executable: String
    package var jemallocLibrary: String?
    /// Whether children keep the exact heap peak. The wrappers that keep it are linked into
    /// `bench` itself (CHeapPeak): false turns them off in the child (`BENCH_EXACT_HEAP=off`).
    package var exactHeapPeak: Bool
    /// Whether children refuse every connection off loopback (`BENCH_LOOPBACK_ONLY=1`, CLoopbackGuard):
    /// true wherever what is measured is on loopback, so that a redirect cannot take a child elsewhere.
    package var loopbackOnly: Bool

    /// - Parameters:
    ///   - executable: a `bench` binary; by default the running one.
    ///   - exactHeapPeak: count the exact heap peak in the children (the default).
    ///   - loopbackOnly: children refuse connections off loopback.
    package init(
        executable: String? = nil,
        jemallocLibrary: String? = JemallocLibrary.locate(),
        exactHeapPeak: Bool = true,
        loopbackOnly: Bool = false
    ) {
        self.executable = executable ?? ChildProcessLauncher.currentExecutable()
        self.jemallocLibrary = jemallocLibrary
        self.exactHeapPeak = exactHeapPeak
        self.loopbackOnly = loopbackOnly
    }

    /// The variable that makes a child refuse connections off loopback.
    package static let loopbackOnlyVariable = LOOPBACKGUARD_ENVIRONMENT_VARIABLE

    package static func currentExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    package func launch(_ spec: TrialSpec) -> TrialResult {
        // Whatever the child downloads, moves or leaves behind goes with its folder.
        defer { try? FileManager.default.removeItem(at: spec.workDirectory) }
        var launched = spec
        launched.launchedAtNanos = MonotonicClock.now()
        let outcome = run(launched, reporting: TrialResult.self)
        let wallSeconds = Double(MonotonicClock.now() - launched.launchedAtNanos!) / 1e9
        switch outcome {
        case .reported(var result, _):
            result.wallSeconds = wallSeconds
            if let blocks = result.peakBlocks {
                let roles = HolderRoles.rules(forStrategy: spec.strategy)
                result.holders = PeakHolderNaming.shared.holders(of: blocks, scratch: spec.workDirectory, roles: roles)
                result.peakBlocks = nil
            }
            return result
        case .failed(let status, let error, let pid):
            var failed = TrialResult(spec: spec, pid: pid)
            (failed.status, failed.error) = (status, error)
            // A child that could not be started has no wall time.
            if status != .harnessError { failed.wallSeconds = wallSeconds }
            return failed
        }
    }

    /// The environment of any measured child (trial or scenario): the parent's, with TMPDIR in the
    /// child's work folder (FoundationNetworking puts download tasks' temporary files there and never
    /// deletes them), jemalloc preloaded when asked for, and the exact heap peak on or off.
    package func environment(workDirectory: URL, allocator: Allocator) throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = workDirectory.path
        // The executable's own malloc wrappers come first in the search order whatever is
        // preloaded, and reach jemalloc's malloc as the next definition (RTLD_NEXT).
        if allocator == .jemalloc {
            guard let jemallocLibrary else {
                throw ChildProcessError.jemallocNotFound
            }
            environment["LD_PRELOAD"] = jemallocLibrary
        } else {
            environment["LD_PRELOAD"] = nil
        }
        environment[ExactHeapPeak.environmentVariable] = exactHeapPeak ? nil : "off"
        environment[Self.loopbackOnlyVariable] = loopbackOnly ? "1" : nil
        return environment
    }
}

/// Finds jemalloc's shared library for LD_PRELOAD. `BENCH_JEMALLOC` overrides the search.
package enum JemallocLibrary {
    package static let searchPaths = [
        "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
        "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
        "/usr/lib64/libjemalloc.so.2",
        "/usr/lib/libjemalloc.so.2",
        "/usr/local/lib/libjemalloc.so.2",
    ]

    package static func locate() -> String? {
        if let override = ProcessInfo.processInfo.environment["BENCH_JEMALLOC"] {
            return FileManager.default.fileExists(atPath: override) ? override : nil
        }
        return searchPaths.first { FileManager.default.fileExists(atPath: $0) }
    }
}

/// The seam through which a test runs a measuring command (`bench run`, sweep, corpus) in its own
/// process: set (task-local), it stands in for the command's children, which then never start. Never
/// set in `bench`.
package enum TrialLauncherOverride {
    @TaskLocal package static var launcher: (any TrialLauncher)?
}
