import BenchCore
import Foundation

/// environment.txt: what a reader needs to place a run's numbers (the binary that measured, machine,
/// OS, toolchain, the measured libraries' versions), read by bench itself, its only writer,
/// from /proc, /etc/os-release, glibc, dpkg's status file and the binary's `Provenance` (the
/// libraries' own versions; the package's beside each).
package enum MachineEnvironment {
    /// `provenance`: nil where none was collected (a merge of shards that recorded none): the
    /// commit and build are then unknown and the libraries' versions are their packages'.
    package static func describe(_ provenance: Provenance?) -> String {
        let packages = installedVersions()
        func version(_ package: String) -> String { packages[package] ?? "not installed" }
        /// The library's own version with its package's beside it; the package's alone without one.
        func library(_ name: String, _ package: String) -> String {
            guard let own = provenance?.libraries[name] else { return version(package) }
            return packages[package].map { "\(own) (package \($0))" } ?? own
        }
        let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let lines = [
            "cpu:           \(cpuModel() ?? "unknown") (\(online) online)",
            "memory:        \(memory() ?? "unknown")",
            "os:            \(osName() ?? "unknown"), kernel \(kernel())",
            "huge pages:    transparent huge pages \(RunContext.transparentHugePageMode() ?? "unknown")",
            "commit:        \(provenance.map { "\($0.commitText) (\($0.commitSource))" } ?? Provenance.unknown)",
            "build:         \(provenance?.build ?? Provenance.unknown) (the GNU build ID of the bench binary)",
            "swift:         \(provenance?.toolchain ?? compiler) (the toolchain bench was built with)",
            "glibc:         \(provenance?.libraries["glibc"] ?? glibc() ?? version("libc6"))",
            "jemalloc:      \(provenance?.libraries["jemalloc"] ?? version("libjemalloc2"))",
            "libcurl:       \(library("libcurl", "libcurl4"))",
            "libjpeg-turbo: \(library("libjpeg-turbo", "libjpeg62-turbo"))",
            "libpng:        \(library("libpng", "libpng16-16"))",
            "libwebp:       \(library("libwebp", "libwebp7"))",
            "libheif:       \(library("libheif", "libheif1")) (libde265 \(version("libde265-0")), "
                + "dav1d \(version("libdav1d6")), x265 \(version("libx265-199")), aom \(version("libaom3")))",
            "libvips:       \(version("libvips42")) (vipsthumbnail, the encodings peer)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    static var compiler: String {
        #if compiler(>=6.4)
        return "Swift 6.4 or later"
        #elseif compiler(>=6.3)
        return "Swift 6.3"
        #elseif compiler(>=6.2)
        return "Swift 6.2"
        #elseif compiler(>=6.1)
        return "Swift 6.1"
        #else
        return "Swift 6.0"
        #endif
    }

    /// "2.36", from confstr's "glibc 2.36".
    static func glibc() -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(
            separator: " "
        ).last.map(String.init)
    }

    static func cpuModel() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func memory() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }),
            let kB = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return nil }
        return String(format: "%.1f GiB", kB / 1_048_576)
    }

    static func osName() -> String? {
        guard let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") })
        else { return nil }
        return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    static func kernel() -> String {
        var name = utsname()
        uname(&name)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return "\(field(name.release)) \(field(name.machine))"
    }

    /// Package -> version from dpkg's status file (empty on a system without dpkg).
    static func installedVersions() -> [String: String] {
        guard let text = try? String(contentsOfFile: "/var/lib/dpkg/status", encoding: .utf8) else { return [:] }
        var versions: [String: String] = [:]
        for stanza in text.components(separatedBy: "\n\n") {
            var package: String?
            var version: String?
            var installed = false
            for line in stanza.split(separator: "\n") {
                if line.hasPrefix("Package: ") { package = String(line.dropFirst(9)) }
                if line.hasPrefix("Version: ") { version = String(line.dropFirst(9)) }
                if line.hasPrefix("Status: ") && line.hasSuffix(" installed") { installed = true }
            }
            if let package, let version, installed { versions[package] = version }
        }
        return versions
    }
}
