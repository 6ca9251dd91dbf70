import BenchCore
import Foundation
import Report
import TestSupport
import Testing

/// The documented maximum, `--rows 10000`, works: the spec (one URL per row) travels in a
/// file instead of argv (one argument is limited to 128 KiB: "Argument list too long" above
/// ~3000 rows), and the parent serves every row from one buffer per distinct body.
@Suite(.serialized) struct ScenarioScaleTests {
    @Test func tenThousandRowsScrollInARealChild() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scenario-scale-\(UUID().uuidString.prefix(8))"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: benchExecutable())
        process.arguments = [
            "scenario", "list-scroll", "--rows", "10000", "--visible", "8", "--speed", "1000",
            "--sizes", "64x48,96x64,128x96", "--strategy", "data", "--render", "thumbnail",
            "--max-concurrent", "4", "--timeout", "120",
            "--fixture-cache", folder.appendingPathComponent("fixtures").path,
            "--out", folder.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The parent's peak RSS (VmHWM), read while it runs; bounded by the child's own timeout.
        var parentPeakKiB = 0
        while process.isRunning {
            if let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            {
                parentPeakKiB = max(parentPeakKiB, kib)
            }
            usleep(100_000)
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        print("10000 rows: parent peak RSS \(parentPeakKiB / 1024) MiB")
        #expect(process.terminationStatus == 0, "\(message.suffix(600))")
        #expect(!message.contains("Argument list too long"))
        let csv = try String(contentsOf: folder.appendingPathComponent("list-scroll.csv"), encoding: .utf8)
        let rows = try CSV.parse(csv)
        #expect(rows.count == 2, "a header and one row")
        let fields = Dictionary(uniqueKeysWithValues: zip(try #require(rows.first), try #require(rows.last)))
        #expect(fields["status"] == "ok", "\(fields)")
        #expect(fields["rows"] == "10000", "\(fields)")
        #expect(parentPeakKiB < 400 * 1024, "the parent stays small: \(parentPeakKiB) KiB")
    }
}
