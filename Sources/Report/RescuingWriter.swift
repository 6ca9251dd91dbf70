import BenchCore
import Foundation

/// Writes a run's files into its folder and, when that fails mid-run (disk full, folder gone),
/// keeps them anyway: in a rescue folder under $TMPDIR, and as a last resort on stderr.
/// Never throws: a failed write must not cost the rows measured so far.
/// Used from the thread that runs the trials only.
package final class RescuingWriter {
    package let folder: OutputFolder
    /// Why the folder could not be written, once it could not.
    package private(set) var failure: String?
    /// Where the files went instead.
    package private(set) var rescueFolder: URL?
    private var rescueFailed = false
    /// The files rows are appended to, by name.
    private var appended: [String: AppendedRows] = [:]

    package init(folder: OutputFolder) {
        self.folder = folder
    }

    /// Where the files are now: the run's folder, or the rescue folder after a failure.
    package var currentFolder: URL { rescueFolder ?? folder.directory }

    /// Writes every file (name -> contents). `final` prints the files on stderr if neither the
    /// folder nor a rescue folder can hold them. Returns the URLs written.
    @discardableResult
    package func write(_ files: [(name: String, contents: Data)], final: Bool = false) -> [URL] {
        if failure == nil {
            do {
                return try files.map { file in
                    try AtomicFile.writeInFolder(file.contents, named: file.name, in: folder.directory)
                    return folder.directory.appendingPathComponent(file.name)
                }
            } catch {
                failure = String(describing: error)
                openRescueFolder()
            }
        }
        if let rescueFolder, !rescueFailed {
            do {
                return try files.map { file in
                    let url = rescueFolder.appendingPathComponent(file.name)
                    try AtomicFile.writeInFolder(file.contents, to: url)
                    return url
                }
            } catch {
                rescueFailed = true
                StandardError.write(
                    "bench: the rescue folder \(rescueFolder.path) cannot be written either: \(error)\n"
                )
            }
        }
        if final {
            for file in files {
                StandardError.write("bench: --- \(file.name) (kept here: no folder could be written) ---\n")
                StandardError.write(file.contents)
            }
        }
        return []
    }

    /// Starts (or, `resuming`, reopens) a file that rows are appended to. After a failure nothing
    /// more is appended: the command writes the whole file at the end (into the rescue folder).
    package func startRows(_ name: String, header: [String], resuming: Bool = false) {
        guard failure == nil else { return }
        let url = folder.directory.appendingPathComponent(name)
        let line = CSV.line(header)
        do {
            appended[name] =
                resuming ? try AppendedRows.reopen(url: url, header: line) : try AppendedRows(url: url, header: line)
        } catch {
            failure = String(describing: error)
            openRescueFolder()
        }
    }

    /// Appends finished rows (whole lines) to `name`, started by `startRows`.
    package func append(_ name: String, lines: String) {
        guard failure == nil, let file = appended[name] else { return }
        do {
            try file.append(lines)
        } catch {
            failure = String(describing: error)
            openRescueFolder()
        }
    }

    /// Whether the appended files hold every row: false once a write failed (the whole files then
    /// go to the rescue folder at the end).
    package var rowsAppended: Bool { failure == nil }

    /// Closes the appended files (before a final whole-file write replaces one).
    package func finishRows() { appended.removeAll() }

    private func openRescueFolder() {
        let rescue = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-rescue-\(folder.runID)",
            isDirectory: true
        )
        do {
            try FileManager.default.createDirectory(at: rescue, withIntermediateDirectories: true)
            rescueFolder = rescue
            StandardError.write(
                "\nbench: \(failure ?? "cannot write"); the run goes on and its files are kept in "
                    + "\(rescue.path) instead (exit status 74 at the end)\n"
            )
        } catch {
            rescueFailed = true
            StandardError.write(
                "\nbench: \(failure ?? "cannot write"); no rescue folder either (\(error)): the files will be printed on stderr at the end\n"
            )
        }
    }

    /// The closing message after a failure, naming where the files are.
    package var failureSummary: String? {
        guard let failure else { return nil }
        if let rescueFolder, !rescueFailed {
            return "\(failure); the run's files are in \(rescueFolder.path)"
        }
        return "\(failure); the run's files were printed on stderr above"
    }
}
