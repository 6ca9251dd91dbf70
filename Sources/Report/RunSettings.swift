import BenchCore
import Foundation

/// The settings a run's rows depend on, recorded in its folder (settings.json) before the first
/// trial: `--resume` goes on only with the same ones, and names each that differs.
package struct RunSettings: Codable, Equatable, Sendable {
    package static let fileName = "settings.json"

    package struct Setting: Codable, Equatable, Sendable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The record's version (`ResultsFormat.current` when written by this bench); nil in folders from before format 1.
    package var format: Int?
    /// The bench command that measured ("run", "sweep", "corpus").
    package var command: String
    /// The run_id of the folder's rows: a resumed run writes its rows with the same id.
    package var runID: String
    package var settings: [Setting]
    /// The binary that measured (`Provenance`), flat under shard.json's keys; absent in folders
    /// recorded by older versions.
    package var build: String?
    package var commit: String?
    package var dirty: Bool?
    package var commitSource: String?
    package var toolchain: String?
    package var libraries: [String: String]?

    package init(command: String, runID: String, settings: [(String, String)], provenance: Provenance?) {
        self.format = ResultsFormat.current
        self.command = command
        self.runID = runID
        self.settings = settings.map { Setting(name: $0.0, value: $0.1) }
        build = provenance?.build
        commit = provenance?.commit
        dirty = provenance?.dirty
        commitSource = provenance?.commitSource
        toolchain = provenance?.toolchain
        libraries = provenance?.libraries
    }

    package func write(into folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.writeInFolder(try encoder.encode(self), to: folder.appendingPathComponent(Self.fileName))
    }

    /// A recorded setting's value by its name (`--max-pixel`), nil when the record has no such setting:
    /// what a run was given is read from here, never parsed back out of a command line.
    package func value(of name: String) -> String? { settings.first { $0.name == name }?.value }

    /// The `--max-pixel` the rows were measured with, nil when the record does not say (unknown).
    package var maxPixel: Int? { value(of: "--max-pixel").flatMap { Int($0) } }

    /// The recorded settings, nil when the folder has none; throws when the file is not readable as such,
    /// or is of a format this bench does not read (`UnreadableFormat`: a newer bench wrote it, or an
    /// older one than the previous format's).
    package static func read(from folder: URL) throws -> RunSettings? {
        let url = folder.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let settings = try JSONDecoder().decode(RunSettings.self, from: data)
        // This bench reads its own format and the one before (no `format`: folders from before format 1).
        let format = settings.format ?? 0
        guard (ResultsFormat.previous...ResultsFormat.current).contains(format) else {
            throw UnreadableFormat(file: url.path, format: format, command: settings.command)
        }
        return settings
    }

    /// A folder's record of a format this bench cannot read: what to do instead.
    package struct UnreadableFormat: Error, CustomStringConvertible {
        package var file: String
        /// The recorded format; 0 for a record without one (before format 1).
        package var format: Int
        package var command: String

        /// The command that measures the folder again: the scenarios are `bench scenario NAME`.
        var measuringCommand: String {
            ["list-scroll", "image-server"].contains(command) ? "scenario \(command)" : command
        }

        package var description: String {
            let again = "measure again with this one (bench \(measuringCommand) --out DIR)"
            guard format < ResultsFormat.previous else {
                return "\(file) is format \(format), written by a newer bench; this one reads formats "
                    + "\(ResultsFormat.readable): read it with the bench that wrote it, or \(again)"
            }
            let which = format == 0 ? "from before formats were recorded (format 0)" : "format \(format)"
            return "\(file) is \(which), written by an older bench; this one reads formats "
                + "\(ResultsFormat.readable): read it with the bench that wrote it, or \(again)"
        }
    }

    /// Each setting that differs, "name: recorded then, now given", in the recorded order.
    package func differences(from recorded: RunSettings) -> [String] {
        var differences: [String] = []
        if command != recorded.command {
            differences.append("command: `bench \(recorded.command)` then, `bench \(command)` now")
        }
        // Rows of two binaries are not one run: a build recorded then must be the one resuming.
        if let then = recorded.build, then != build {
            differences.append(
                "the bench binary (build ID): \(then) then, \(build ?? Provenance.unknown) now; "
                    + "resume with the binary that started the run"
            )
        }
        let old = Dictionary(recorded.settings.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(settings.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        for name in recorded.settings.map(\.name) + settings.map(\.name).filter({ old[$0] == nil })
        where old[name] != new[name] {
            differences.append("\(name): \(old[name] ?? "(not set)") then, \(new[name] ?? "(not set)") now")
        }
        return differences
    }
}
