import Foundation

/// Which binary measured, and with what: the bench binary's GNU build ID, the commit it was built
/// from (and whether that tree had changes), the toolchain and the measured libraries' versions.
/// Collected once per invocation and recorded in trials.json's context, settings.json and
/// environment.txt under shard.json's keys (`commit`, `build`), so that a figure names its code.
/// What bench cannot know is `unknown`, never a guess.
package struct Provenance: Codable, Sendable, Equatable {
    package static let unknown = "unknown"

    /// The GNU build ID of the bench binary (its `.note.gnu.build-id`, as `readelf -n` prints it).
    package var build: String
    /// The commit bench was built from: BENCH_COMMIT (or GITHUB_SHA) when set, else the checkout it
    /// was built in, else `unknown`.
    package var commit: String
    /// Whether that checkout's build inputs (Package.swift, Package.resolved, Sources/) had changes;
    /// nil when not known (the commit came from the environment, or no checkout was found).
    package var dirty: Bool?
    /// Where `commit` came from ("BENCH_COMMIT", "checkout /path"), or why it is unknown.
    package var commitSource: String
    /// The Swift toolchain bench was built with.
    package var toolchain: String
    /// Library name (glibc, jemalloc, libcurl, libjpeg-turbo, libpng, libwebp, libheif) -> version.
    package var libraries: [String: String]

    package init(
        build: String,
        commit: String,
        dirty: Bool?,
        commitSource: String,
        toolchain: String,
        libraries: [String: String]
    ) {
        self.build = build
        self.commit = commit
        self.dirty = dirty
        self.commitSource = commitSource
        self.toolchain = toolchain
        self.libraries = libraries
    }

    /// The libraries a folder records, in the order environment.txt lists them.
    package static let libraryNames = ["glibc", "jemalloc", "libcurl", "libjpeg-turbo", "libpng", "libwebp", "libheif"]

    /// "abc123", "abc123 with uncommitted changes" or "unknown": the commit as a reader needs it.
    package var commitText: String {
        commit + (dirty == true ? " with uncommitted changes" : "")
    }

    /// A line saying that two results come from different builds, naming both; nil when they come
    /// from the same build. A side that records no build (a file from an older bench) is `unknown`,
    /// and two unknowns are not called the same.
    package static func differentBuilds(
        _ first: (name: String, provenance: Provenance?),
        _ second: (name: String, provenance: Provenance?)
    ) -> String? {
        func named(_ side: (name: String, provenance: Provenance?)) -> String {
            guard let provenance = side.provenance else { return "\(side.name) build \(unknown), commit \(unknown)" }
            return "\(side.name) build \(provenance.build), commit \(provenance.commitText)"
        }
        let builds = [first.provenance?.build, second.provenance?.build].map { $0 ?? unknown }
        if builds[0] == builds[1], builds[0] != unknown { return nil }
        return (builds.contains(unknown) ? "note: not known to be the same build: " : "note: different builds: ")
            + "\(named(first)); \(named(second))"
    }
}
