import BenchCore
import Foundation
import Testing

/// residency.csv, holders.csv's resident_bytes and timeline.csv's file_bytes read back as written,
/// and the files of earlier versions (without the new columns) still read.
struct ResidencyCSVTests {
    static func result(run: Int) -> TrialResult {
        let cell = TrialCell(strategy: "data", render: .none, allocator: .system)
        var result = TrialResult(cell: cell, run: run, pid: 1)
        result.residency =
            ResidencyRow.rows(moment: .rssPeak, rssDelta: 1000, deltas: [.heapHolders: 600, .fileBacked: 300])
            + ResidencyRow.rows(moment: .end, rssDelta: 500, deltas: [.heapHolders: 480])
        result.holders = [
            PeakHolder(bytes: 4096, blocks: 1, allocatedBy: "f", module: "m", stack: ["a", "f"], residentBytes: 1024)
        ]
        result.peakHeapExactBytes = 5000
        result.timeline = [TimelinePoint(seconds: 0.5, residentBytes: 9000, allocatedBytes: 100, fileBytes: 4000)]
        return result
    }

    @Test func aMomentsRowsAddUpToItsRSSDeltaWithUnattributedLast() {
        let rows = ResidencyRow.rows(moment: .rssPeak, rssDelta: 1000, deltas: [.heapHolders: 600, .fileBacked: 300])
        #expect(rows.map(\.category) == ResidencyCategory.allCases)
        #expect(rows.reduce(0) { $0 + $1.bytes } == 1000)
        #expect(rows.last?.bytes == 100)
    }

    @Test func residencyRowsReadBackAndARunsLaterRowsWin() throws {
        let first = Self.result(run: 1)
        let second = Self.result(run: 2)
        var text = ResidencyCSV.render([first, second], runID: "r")
        var again = second
        again.residency =
            ResidencyRow.rows(moment: .rssPeak, rssDelta: 7, deltas: [:])
            + ResidencyRow.rows(moment: .end, rssDelta: 3, deltas: [:])
        text += ResidencyCSV.lines(again, runID: "r")
        let runs = try ResidencyCSV.parse(text)
        #expect(runs[RunKey(cell: first.cell, run: 1)] == first.residency)
        #expect(runs[RunKey(cell: second.cell, run: 2)] == again.residency)
        let kept = try #require(try ResidencyCSV.keeping(text, runs: [RunKey(cell: first.cell, run: 1)]))
        #expect(try ResidencyCSV.parse(kept).keys.map(\.run) == [1])
        #expect(throws: CSVError.self) {
            try ResidencyCSV.parse(text.replacingOccurrences(of: "heap-holders", with: "heap"))
        }
    }

    @Test func holdersResidentBytesReadBackAndOlderFilesStillRead() throws {
        let result = Self.result(run: 1)
        let text = HoldersCSV.render([result], runID: "r")
        let run = try #require(try HoldersCSV.parse(text).first)
        #expect(run.holders.first?.residentBytes == 1024)
        let older =
            text.split(separator: "\n").map { line in
                String(line.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ","))
            }.joined(separator: "\n") + "\n"
        let olderRun = try #require(try HoldersCSV.parse(older).first)
        #expect(olderRun.holders.first?.bytes == 4096 && olderRun.holders.first?.residentBytes == nil)
    }

    @Test func timelineFileBytesReadBackAndOlderFilesStillRead() throws {
        let result = Self.result(run: 1)
        let key = RunKey(cell: result.cell, run: 1)
        let text = TimelineCSV.render([result], runID: "r")
        #expect(try TimelineCSV.parse(text, keep: [key])[key]?.first?.fileBytes == 4000)
        let older = text.replacingOccurrences(of: ",file_bytes", with: "").replacingOccurrences(of: ",4000,", with: ",")
        let point = try #require(try TimelineCSV.parse(older, keep: [key])[key]?.first)
        #expect(point.residentBytes == 9000 && point.fileBytes == nil)
    }
}
