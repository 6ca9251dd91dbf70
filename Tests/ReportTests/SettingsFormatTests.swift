import BenchCore
import Foundation
import Report
import Testing

/// A folder's settings.json says its format: this bench reads its own and the one before, and refuses
/// a newer one, an older one and one without `format` (before format 1) with what to do, rather than
/// misreading it.
struct SettingsFormatTests {
    /// settings.json in a folder of its own, with `format` set to `format` (nil: left out).
    static func folder(format: Int?, command: String = "run") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("settings-format-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var settings = RunSettings(command: command, runID: "r1", settings: [("--runs", "3")], provenance: nil)
        settings.format = format
        try settings.write(into: folder)
        return folder
    }

    @Test(arguments: [ResultsFormat.previous, ResultsFormat.current])
    func theCurrentFormatAndTheOneBeforeAreRead(format: Int?) throws {
        let folder = try Self.folder(format: format)
        defer { try? FileManager.default.removeItem(at: folder) }
        let settings = try #require(try RunSettings.read(from: folder))
        #expect(settings.format == format && settings.value(of: "--runs") == "3")
    }

    @Test func aNewerFormatIsRefusedNamingItAndWhatToDo() throws {
        let folder = try Self.folder(format: ResultsFormat.current + 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect {
            _ = try RunSettings.read(from: folder)
        } throws: { error in
            let text = String(describing: error)
            return text.contains("is format \(ResultsFormat.current + 1), written by a newer bench")
                && text.contains("measure again with this one (bench run --out DIR)")
        }
    }

    /// A format older than the previous one, or none (before format 1), is refused naming it and the
    /// command that measures the folder again (a scenario's is `bench scenario NAME`).
    @Test(arguments: [nil, ResultsFormat.previous - 1])
    func anOlderFormatIsRefusedNamingItAndWhatToDo(format: Int?) throws {
        let folder = try Self.folder(format: format, command: "list-scroll")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect {
            _ = try RunSettings.read(from: folder)
        } throws: { error in
            let text = String(describing: error)
            return text.contains("format \(format ?? 0)") && text.contains("written by an older bench")
                && text.contains("reads formats \(ResultsFormat.previous) and \(ResultsFormat.current)")
                && text.contains("measure again with this one (bench scenario list-scroll --out DIR)")
        }
    }
}
