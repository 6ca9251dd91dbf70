import BenchCore
import Foundation

/// The commit a bench binary was built from, read at run time from the checkout it was built in:
/// the binary's path (`<root>/.build/<triple>/release/bench`) names the package root, where
/// `git rev-parse HEAD` and `git status --porcelain` say the commit and whether its build inputs had changes.
///
/// Read at run time rather than by a build plugin (which would run git on every build, also in a
/// user's package that depends on the library): the same for `swift run bench` and `make`. What it
/// reads is the checkout now, so it is trusted only when no build input (Package.swift,
/// Package.resolved, Sources/) is newer than the binary; else the commit is unknown, with the reason.
package enum CheckoutCommit {
    package struct Found: Equatable, Sendable {
        package var commit: String
        package var dirty: Bool?
        /// Where the commit came from, or why it is unknown.
        package var source: String
    }

    /// BENCH_COMMIT, else GITHUB_SHA, else the checkout of `executable`, else unknown.
    package static func find(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String = "/proc/self/exe"
    ) -> Found {
        for variable in ["BENCH_COMMIT", "GITHUB_SHA"] {
            if let value = environment[variable], !value.isEmpty {
                return Found(commit: value, dirty: nil, source: variable)
            }
        }
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        let parts = binary.pathComponents
        guard let buildFolder = parts.lastIndex(of: ".build"), buildFolder > 0 else {
            return unknown("\(binary.path) is not in a SwiftPM .build folder")
        }
        let root = URL(fileURLWithPath: NSString.path(withComponents: Array(parts[..<buildFolder])), isDirectory: true)
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) else {
            return unknown("\(root.path) has no Package.swift")
        }
        if let newer = newestInput(in: root, than: binary) {
            return unknown("\(newer) changed after \(binary.path) was built")
        }
        guard let head = git(["rev-parse", "--verify", "HEAD"], in: root), head.count == 1,
            let commit = head.first, commit.count >= 40, commit.allSatisfy(\.isHexDigit)
        else { return unknown("no git commit readable in \(root.path)") }
        guard let changes = git(["status", "--porcelain", "--"] + buildInputs, in: root) else {
            return Found(commit: commit, dirty: nil, source: "checkout \(root.path) (its status unreadable)")
        }
        return Found(commit: commit, dirty: !changes.isEmpty, source: "checkout \(root.path)")
    }

    /// What a build reads from the checkout. Only a change here makes a build "with uncommitted
    /// changes": a re-measure writes results/ while it runs, which changes no binary.
    static let buildInputs = ["Package.swift", "Package.resolved", "Sources"]

    static func unknown(_ reason: String) -> Found {
        Found(commit: Provenance.unknown, dirty: nil, source: reason)
    }

    /// The first build input modified after the binary, if any: then the checkout is not what was built.
    static func newestInput(in root: URL, than binary: URL) -> String? {
        func modified(_ url: URL) -> Date? {
            (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
        }
        guard let built = modified(binary) else { return binary.path }
        let files = ["Package.swift", "Package.resolved"].map { root.appendingPathComponent($0) }
        let sources = FileManager.default.enumerator(
            at: root.appendingPathComponent("Sources"),
            includingPropertiesForKeys: [.contentModificationDateKey]
        )
        for case let url as URL in AnySequence(files + (sources?.allObjects ?? [])) {
            if let date = modified(url), date > built { return url.path }
        }
        return nil
    }

    /// git's output lines, or nil when git is missing, fails or takes over 5 s (then it is killed).
    /// No optional locks (a status that would rewrite the index) and no fsmonitor hook.
    static func git(_ arguments: [String], in root: URL) -> [String]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "--no-optional-locks", "-c", "core.fsmonitor=false", "-C", root.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_TERMINAL_PROMPT"] = "0"
        // The package's own checkout only: a package folder copied into another repository's tree is
        // not that repository's commit.
        environment["GIT_CEILING_DIRECTORIES"] = root.deletingLastPathComponent().path
        // A bench started by a git hook inherits these, which would name another repository.
        for variable in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"] {
            environment[variable] = nil
        }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let deadline = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 5, execute: deadline)
        // At most 1 MiB is read: a status that long says "changed" as well as a whole one.
        let data = (try? output.fileHandleForReading.read(upToCount: 1 << 20)) ?? Data()
        try? output.fileHandleForReading.close()
        process.waitUntilExit()
        deadline.cancel()
        let succeeded = process.terminationReason == .exit && process.terminationStatus == 0
        guard succeeded || data.count == 1 << 20 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
