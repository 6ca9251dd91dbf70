import BenchCore
import Foundation
import Report
import Testing

/// A folder's settings.json says its format: this bench reads its own and the one before (folders
/// without `format`), and refuses a newer one with what to do, rather than misreading it.
struct SettingsFormatTests {
    /// settings.json in a folder of its own, with `format` set to `format` (nil: left out).
    static func folder(format: Int?) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("settings-format-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var settings = RunSettings(command: "run", runID: "r1", settings: [("--runs", "3")], provenance: nil)
        settings.format = format
        try settings.write(into: folder)
        return folder
    }

    @Test(arguments: [nil, RunSettings.currentFormat])
    func theCurrentFormatAndTheOneBeforeAreRead(format: Int?) throws {
        let folder = try Self.folder(format: format)
        defer { try? FileManager.default.removeItem(at: folder) }
        let settings = try #require(try RunSettings.read(from: folder))
        #expect(settings.format == format && settings.value(of: "--runs") == "3")
    }

    @Test func aNewerFormatIsRefusedNamingItAndWhatToDo() throws {
        let folder = try Self.folder(format: RunSettings.currentFormat + 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect {
            _ = try RunSettings.read(from: folder)
        } throws: { error in
            let text = String(describing: error)
            return text.contains("is format \(RunSettings.currentFormat + 1), written by a newer bench")
                && text.contains("measure again with this one (bench run --out DIR)")
        }
    }
}
