import BenchCore
import Foundation
import Harness

/// One image of a corpus: a file under the folder, or a URL from the list.
package struct CorpusEntry: Sendable, Equatable {
    package enum Location: Sendable, Equatable {
        case file(RawPath)
        case url(URL)
        /// A folder (or a file) the walk could not read: a read_error row, with why.
        case unreadable(reason: String)
    }

    /// The file's path relative to the corpus folder (escaped, `RawPath.escaped`; a folder's ends
    /// in "/"), or the URL as written.
    package var name: String
    package var location: Location

    package init(name: String, location: Location) {
        self.name = name
        self.location = location
    }
}

/// A corpus argument that cannot be measured at all, named with what to do instead.
package struct CorpusInputError: Error, CustomStringConvertible, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The path does not exist or cannot be read.
        case missing
        /// A folder with no files, or a list with no URLs.
        case empty
        /// A URL list with malformed or non-loopback lines.
        case badList
    }

    package var kind: Kind
    package var description: String
}

/// Finds the images to measure: every regular file under a folder (recursively, hidden files and
/// folders skipped, sorted by path; a folder or file that cannot be read is an entry too, to be a
/// read_error row), or the URLs of a text file (one a line; blank lines and
/// `#` comments skipped). Which files are images is decided later, from their bytes.
package enum CorpusInput {
    /// Files above this are listed but not read whole into the server: a row says so.
    package static let maxFileBytes = 512 * 1024 * 1024

    /// `skipping`: a folder not to look into, found by its resolved path however it is named (the
    /// output folder: inside the corpus, a second run would measure the first one's CSVs); `onSkip`
    /// gets its path as found under the corpus.
    package static func entries(
        at path: String,
        skipping excluded: String? = nil,
        onSkip: (String) -> Void = { _ in }
    ) throws(CorpusInputError) -> [CorpusEntry] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CorpusInputError(
                kind: .missing,
                description:
                    "'\(path)' does not exist; give a folder of images or a text file of image URLs (one a line)"
            )
        }
        guard isFolder.boolValue else { return try urls(inList: path) }
        return try files(
            in: URL(fileURLWithPath: path, isDirectory: true),
            skipping: excluded.flatMap(resolved),
            onSkip: onSkip
        )
    }

    static func files(
        in folder: URL,
        skipping excluded: String? = nil,
        onSkip: (String) -> Void = { _ in }
    ) throws(CorpusInputError) -> [CorpusEntry] {
        let root = RawPath(folder.path)
        guard let top = root.withCString({ opendir($0) }) else {
            throw CorpusInputError(
                kind: .missing,
                description: "cannot read the folder '\(folder.path)': \(String(cString: strerror(errno)))"
            )
        }
        var entries: [CorpusEntry] = []
        // Folders still to read, each with its path relative to the corpus (bytes, as named).
        var pending: [(folder: RawPath, relative: [UInt8], handle: OpaquePointer?)] = [(root, [], top)]
        while let next = pending.popLast() {
            let displayed = RawPath.escaped(next.relative) + "/"
            guard let handle = next.handle ?? next.folder.withCString({ opendir($0) }) else {
                entries.append(
                    CorpusEntry(
                        name: displayed,
                        location: .unreadable(
                            reason:
                                "cannot read the folder \(next.folder.escaped): \(String(cString: strerror(errno))); the files in it are not measured"
                        )
                    )
                )
                continue
            }
            defer { closedir(handle) }
            while true {
                errno = 0
                guard let item = readdir(handle) else {
                    if errno != 0 {
                        entries.append(
                            CorpusEntry(
                                name: displayed,
                                location: .unreadable(
                                    reason:
                                        "cannot read all of the folder \(next.folder.escaped): \(String(cString: strerror(errno)))"
                                )
                            )
                        )
                    }
                    break
                }
                let name = withUnsafeBytes(of: item.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                if name.first == UInt8(ascii: ".") { continue }  // hidden, and . and ..
                let path = next.folder.appending(name)
                let relative = next.relative.isEmpty ? name : next.relative + [UInt8(ascii: "/")] + name
                switch kind(of: path) {
                case .failure(let problem):
                    entries.append(
                        CorpusEntry(name: RawPath.escaped(relative), location: .unreadable(reason: problem.description))
                    )
                case .success(.folder):
                    // Links to folders are not followed, so a folder met here is a real one: its resolved path is exact.
                    if let excluded, resolved(path) == excluded {
                        onSkip(path.escaped)
                    } else {
                        pending.append((path, relative, nil))
                    }
                case .success(.file):
                    entries.append(CorpusEntry(name: RawPath.escaped(relative), location: .file(path)))
                case .success(.other):
                    continue
                }
            }
        }
        guard !entries.isEmpty else {
            throw CorpusInputError(
                kind: .empty,
                description:
                    "the folder '\(folder.path)' has no files (hidden ones are skipped); put images in it (JPEG, PNG, WebP, ...)"
            )
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// `path` with every symbolic link, `.` and `..` resolved (realpath(3)); nil if it does not exist.
    static func resolved(_ path: String) -> String? {
        resolved(RawPath(path))
    }

    static func resolved(_ path: RawPath) -> String? {
        guard let pointer = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    enum Kind { case file, folder, other }

    /// A regular file, or a symbolic link to one (measured as the file it points to; the name is
    /// the link's), is a file. A broken link or a loop of links is a file too, to become a
    /// read_error row rather than a silent gap. A link to a folder is not followed, and devices,
    /// FIFOs and sockets are skipped (other). A path that cannot even be looked at is a failure.
    static func kind(of path: RawPath) -> Result<Kind, RawPath.ReadProblem> {
        var status = stat()
        guard path.withCString({ lstat($0, &status) }) == 0 else {
            return .failure(RawPath.ReadProblem(path: path, errno: errno))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .success(.file)
        case S_IFDIR: return .success(.folder)
        case S_IFLNK:
            var target = stat()
            guard path.withCString({ stat($0, &target) }) == 0 else { return .success(.file) }
            return .success((target.st_mode & S_IFMT) == S_IFREG ? .file : .other)
        default: return .success(.other)
        }
    }

    static func urls(inList path: String) throws(CorpusInputError) -> [CorpusEntry] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CorpusInputError(kind: .missing, description: "cannot read '\(path)'")
        }
        guard let text = String(data: data, encoding: .utf8), !data.contains(0) else {
            throw CorpusInputError(
                kind: .badList,
                description:
                    "'\(path)' is not a folder or a UTF-8 text file of URLs; give a folder of images or a list of http://127.0.0.1:PORT/... URLs, one a line"
            )
        }
        var entries: [CorpusEntry] = []
        var problems: [String] = []
        var lineOf: [String: Int] = [:]
        // Character.isNewline: "\r\n" (a list saved on Windows) is one Character, never equal to "\n".
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            switch loopbackURL(line) {
            case .success(let url):
                // The name (credentials hidden) is the rows' key: a URL named twice would be measured twice.
                let name = redacted(url)
                if let first = lineOf[name] {
                    problems.append("line \(number + 1): \(name) is also on line \(first); list each URL once")
                } else {
                    lineOf[name] = number + 1
                    entries.append(CorpusEntry(name: name, location: .url(url)))
                }
            case .failure(let problem): problems.append("line \(number + 1): \(problem)")
            }
        }
        if !problems.isEmpty {
            let shown =
                problems.prefix(10).joined(separator: "\n  ")
                + (problems.count > 10 ? "\n  ... and \(problems.count - 10) more" : "")
            throw CorpusInputError(
                kind: .badList,
                description: "'\(path)' has lines that are not loopback image URLs, "
                    + "or repeat one:\n  \(shown)\nexpected one http(s)://127.0.0.1[:port]/path "
                    + "(or localhost, [::1]) a line, each once; blank lines and # comments are skipped"
            )
        }
        guard !entries.isEmpty else {
            throw CorpusInputError(
                kind: .empty,
                description: "'\(path)' lists no URLs; put one http://127.0.0.1:PORT/path a line"
            )
        }
        return entries
    }

    /// The project measures only its own machine: http(s) to 127.0.0.0/8, localhost or ::1.
    package static func loopbackURL(_ text: String) -> Result<URL, LineProblem> {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            return .failure(LineProblem("'\(text)' is not an http(s) URL"))
        }
        guard url.isLoopback else {
            return .failure(LineProblem("'\(host)' is not a loopback host (127.0.0.1, localhost, ::1)"))
        }
        // Foundation takes any number as a port; every fetch would then fail (as --url refuses it).
        if let port = url.port, !(1...65535).contains(port) {
            return .failure(LineProblem("'\(redacted(url))': port \(port) is out of range (1-65535)"))
        }
        return .success(url)
    }

    /// The URL as rows, tables and messages show it: a user and password in it as `***`.
    package static func redacted(_ url: URL) -> String {
        guard url.user != nil || url.password != nil,
            var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url.absoluteString }
        parts.user = nil
        parts.password = nil
        guard let bare = parts.string, let scheme = url.scheme, bare.hasPrefix(scheme + "://") else {
            return "(a URL with credentials)"
        }
        return scheme + "://***@" + bare.dropFirst(scheme.count + 3)
    }

    package struct LineProblem: Error, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }
}
