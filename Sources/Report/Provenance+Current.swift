import BenchCore
import Foundation

extension Provenance {
    /// This bench binary's provenance, read once per invocation. `libraries`: the versions only a
    /// module that links them can read (libcurl, libjpeg-turbo, libpng, libwebp, libheif); glibc's
    /// and jemalloc's are added here. jemalloc is never loaded into bench (the children preload it),
    /// so its version is the installed package's, from dpkg's status file.
    package static func current(
        libraries: [String: String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Provenance {
        let checkout = CheckoutCommit.find(environment: environment)
        var all = libraries
        all["glibc"] = MachineEnvironment.glibc() ?? unknown
        all["jemalloc"] =
            MachineEnvironment.installedVersions()["libjemalloc2"].map { "\($0) (package)" }
            ?? "not installed"
        return Provenance(
            build: ExecutableBuildID.current ?? unknown,
            commit: checkout.commit,
            dirty: checkout.dirty,
            commitSource: checkout.source,
            toolchain: builtToolchain,
            libraries: all
        )
    }

    /// The Swift compiler's version as `#if compiler` tells it, and the toolchain's clang that
    /// compiled the C shims, as the binary's .comment records it.
    static var builtToolchain: String {
        let clang = ExecutableComment.current.first { $0.contains("swiftlang") }
        return MachineEnvironment.compiler + (clang.map { "; \($0)" } ?? "")
    }
}
