import BenchCore
import Foundation
import Imaging
import Measuring
import Report
import Scenarios
import TestSupport
import Testing

/// The list scroll's measurement driven below the command line, with no process: each scroll's result
/// is a recorded one (`ScrollRequest.scroller`), so what is tested is the folder: its rows appended as
/// each scroll ends, its format recorded, and folders of other formats refused or read.
@Suite(.serialized) struct ScrollLifecycleTests {
    /// What the file looked like when each scroll started: its lines and its inode.
    final class Scrolls {
        var seen: [(lines: Int, inode: UInt64?)] = []
    }

    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("scroll-lifecycle-\(getpid())-\(UUID().uuidString.prefix(8))")

    var csv: URL { folder.appendingPathComponent(ListScrollCSV.fileName) }

    static func inode(_ url: URL) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? UInt64) ?? nil
    }

    /// Two scrolls (caps 1 and 2) into `folder`, each result made from its settings, nothing measured.
    func request(_ scrolls: Scrolls, bandwidth: Int? = nil) -> ScrollRequest {
        var template = ListScrollScenario.Settings(
            strategy: .data,
            render: .thumbnail,
            fixtures: [FixtureSpec(width: 64, height: 48, seed: 1)],
            fixtureCacheDirectory: folder.appendingPathComponent("fixtures")
        )
        template.bandwidthBytesPerSecond = bandwidth
        var request = ScrollRequest(
            strategies: [.data],
            renders: [.thumbnail],
            caps: [1, 2],
            runs: 1,
            template: template,
            output: MeasurementOutput(out: folder.path)
        )
        let csv = self.csv
        request.scroller = { settings, work in
            let text = (try? String(contentsOf: csv, encoding: .utf8)) ?? ""
            scrolls.seen.append((text.split(separator: "\n").count, Self.inode(csv)))
            var result = ScrollResult(
                spec: ScrollSpec(
                    strategy: settings.strategy,
                    render: settings.render,
                    rowURLs: [],
                    warmupURL: nil,
                    visibleRows: settings.visibleRows,
                    rowsPerSecond: settings.rowsPerSecond,
                    maxConcurrent: settings.maxConcurrent,
                    cacheLimitBytes: settings.cacheLimitBytes,
                    workDirectory: work
                )
            )
            // What the parent records beside the child's report (ListScrollScenario).
            result.bandwidthBytesPerSecond = settings.bandwidthBytesPerSecond
            result.fixtureSizes = settings.fixtures.map { "\($0.width)x\($0.height)" }
            return result
        }
        return request
    }

    /// Each scroll's row is in the file before the next scroll starts, appended to the one file
    /// (its inode kept), never the whole file written again after each scroll; before the first row
    /// there is no file (a run that measured nothing claims none).
    @Test func rowsAreAppendedAsEachScrollEnds() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scrolls = Scrolls()
        try ScrollMeasurement(request(scrolls)).run()
        let lines = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3 && lines.first.map(String.init) == ListScrollCSV.header)
        #expect(scrolls.seen.map(\.lines) == [0, 2], "no file before the first row, that row before the second scroll")
        #expect(scrolls.seen.last?.inode != nil && scrolls.seen.last?.inode == Self.inode(csv), "one file, appended to")
    }

    /// A folder without settings.json gets one that records its format (the current one), and no
    /// settings: the scroll does not own its folder, so another command may still measure there.
    @Test func aNewFolderRecordsItsFormat() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try ScrollMeasurement(request(Scrolls())).run()
        let recorded = try #require(try RunSettings.read(from: folder))
        #expect(recorded.format == ResultsFormat.current && recorded.command == "list-scroll")
        #expect(recorded.settings.isEmpty)
        #expect(FolderOwnership.owner(of: folder) == nil)
    }

    /// A folder of the previous format holds the scroll's rows as scenario.csv: read, never appended
    /// to (73, naming it), and nothing is measured.
    @Test func aFolderOfThePreviousFormatIsNotAppendedTo() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let previous = folder.appendingPathComponent(ListScrollCSV.previousFileName)
        let failure = try #require(try refusal { try Data((ListScrollCSV.header + "\n").utf8).write(to: previous) })
        #expect(failure.code == .cannotCreateOutput, "\(failure)")
        #expect(
            failure.description.contains("holds scenario.csv, the rows of a format \(ResultsFormat.previous) folder")
        )
        #expect(ListScrollCSV.url(in: folder) == previous, "still read")
    }

    /// A folder whose settings.json is older than the previous format (none recorded: before format 1)
    /// is refused (65) naming its format and the command that measures it again.
    @Test func aFolderOfAnOlderFormatIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let failure = try #require(
            try refusal {
                var old = RunSettings(command: "run", runID: "r", settings: [], provenance: nil)
                old.format = nil
                try old.write(into: folder)
            }
        )
        #expect(failure.code == .badInput, "\(failure)")
        #expect(failure.description.contains("(format 0)") && failure.description.contains("bench run --out DIR"))
    }

    /// The failure a list scroll into `folder` ends with, once `prepare` has set the folder up; no
    /// scroll may start.
    func refusal(_ prepare: () throws -> Void) throws -> BenchFailure? {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try prepare()
        let scrolls = Scrolls()
        defer { #expect(scrolls.seen.isEmpty, "nothing is measured") }
        do { try ScrollMeasurement(request(scrolls)).run() } catch let failure as BenchFailure { return failure }
        return nil
    }

    /// Two invocations into one folder with different --bandwidth are two settings groups: each row
    /// records the bandwidth it was measured with, and its invocation's run id (`bench`'s processes
    /// differ in it; two invocations in this one process within a second may share it).
    @Test func twoInvocationsWithOtherBandwidthsAreTwoGroups() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try ScrollMeasurement(request(Scrolls(), bandwidth: 10_000_000)).run()
        try ScrollMeasurement(request(Scrolls(), bandwidth: 20_000_000)).run()
        let groups = try ListScrollCSV.groups(try String(contentsOf: csv, encoding: .utf8), path: csv.path)
        try #require(groups.count == 2)
        #expect(
            groups.map { $0.rows.map { $0["bandwidth_bytes_per_second"] } } == [
                ["10000000", "10000000"], ["20000000", "20000000"],
            ]
        )
        #expect(groups.allSatisfy { $0.rows.allSatisfy { $0["sizes"] == "64x48" } })
        #expect(groups.allSatisfy { $0.runIDs.count == 1 }, "each invocation's run id on its rows")
    }
}
