import Foundation
import Report
import Testing

/// `bench report --data-out DIR` writes the chart data into DIR and removes the chart files it wrote
/// there before and no longer writes; any other file stays, a user's own `.dat` included.
struct ChartDataFolderTests {
    @Test func onlyStaleChartFilesAreRemoved() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chart-data-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("my own data\n".utf8).write(to: folder.appendingPathComponent("experiment.dat"))
        try Data("an older sweep\n".utf8).write(to: folder.appendingPathComponent("sweep.dat"))
        let written = try RunFolderReport.writeChartData(["article.dat": "a\n", "vars.gp": "v\n"], to: folder)
        #expect(written.map(\.lastPathComponent) == ["article.dat", "vars.gp"])
        #expect(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("experiment.dat").path),
            "a file that is not chart data of ours stays"
        )
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("sweep.dat").path),
            "a chart file this run did not write is stale, and removed"
        )
    }
}
