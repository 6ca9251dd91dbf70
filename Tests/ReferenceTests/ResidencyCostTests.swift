import BenchCore
import Foundation
import ReferenceDocuments
import Testing

/// residency-cost.csv: the same cells with the residency snapshots on and off, read into what the
/// snapshots add (the median of the differences within pairs: a round's run with them and its run
/// without) and their own time per run.
@Suite struct ResidencyCostTests {
    static let header =
        "workload,residency,round,strategy,render,allocator,run,status,window_ms,wall_ms,snapshots,snapshot_ms,in_window_ms\n"

    static func line(_ residency: String, _ run: Int, window: Double, wall: Double, snapshot: Double? = nil) -> String {
        let snapshotFields = snapshot.map { "4,\($0),\($0 / 2)" } ?? ",,"
        return "article,\(residency),1,data,none,system,\(run),ok,\(window),\(wall),\(snapshotFields)\n"
    }

    /// "Added" is the median of the pairs' differences, for the window and the wall time alike (here
    /// not the difference of the sides' medians: the pairs' drift cancels); a run without its pair
    /// counts for neither. The snapshots' time comes from the runs that took them.
    @Test func addedTimeIsTheMedianDifferenceWithinPairs() throws {
        let text =
            Self.header + Self.line("on", 1, window: 30, wall: 100, snapshot: 1.5)
            + Self.line("on", 2, window: 33, wall: 104, snapshot: 6.5)
            + Self.line("on", 3, window: 31, wall: 102, snapshot: 2)
            + Self.line("off", 1, window: 29, wall: 99) + Self.line("off", 2, window: 34, wall: 101)
            + Self.line("off", 3, window: 40, wall: 130)
            + "article,off,1,data,none,system,4,timeout,,,,,\n" + Self.line("off", 5, window: 90, wall: 190)
        let cost = try ResidencyCost.parse(text)
        #expect(cost.runs.count == 7)
        let values = cost.values()
        #expect(values["residency_cost_article_wall_added_max_ms"] == "1.0")
        #expect(values["residency_cost_article_window_added_max_ms"] == "-1.0")
        #expect(values["residency_cost_article_wall_added_max_cell"] == "data+none [system]")
        // HEIC's bound is its snapshots' own time, beside the median window of its pairs.
        let heic = try ResidencyCost.parse(text.replacingOccurrences(of: "article,", with: "heic,")).values()
        #expect(heic["residency_cost_heic_snapshot_median_max_ms"] == "2.0")
        #expect(heic["residency_cost_heic_snapshot_max_ms"] == "6.5")
        // The pairs' windows (29, 30, 31, 33, 34, 40 ms; the unpaired run's 90 ms is not one).
        #expect(heic["residency_cost_heic_window_median_ms"] == "32")
        #expect(values["residency_cost_pairs"] == "3")
        #expect(
            values["residency_cost_snapshot_median_ms"] == "2.0" && values["residency_cost_snapshot_max_ms"] == "6.5"
        )
        #expect(values["residency_cost_snapshot_over_target"] == "1")
        // The median run spent 1 ms of its 31 ms window in snapshots on the measured threads.
        #expect(values["residency_cost_window_share_max_pct"] == "3.23")
        #expect(
            cost.table().contains("| article | data+none [system] | 3 | 34.0 / 31.0 | -1.0 | 101.0 / 102.0 | +1.0 ("),
            "\(cost.table())"
        )
    }

    /// A file with another header, a residency other than on or off, an ok run without its times (or
    /// with times not finite, or negative), or snapshot times on a run without snapshots is refused.
    @Test func malformedFilesAreRefused() {
        for text in [
            "workload,residency\narticle,on\n",
            Self.header + "article,maybe,1,data,none,system,1,ok,30,100,4,1,0.5\n",
            Self.header + "article,on,first,data,none,system,1,ok,30,100,4,1,0.5\n",
            Self.header + "article,on,1,data,none,system,1,ok,,100,4,1,0.5\n",
            Self.header + "article,on,1,data,none,system,1,ok,30,20,4,1,0.5\n",
            Self.header + "article,off,1,data,none,system,1,ok,30,100,4,1,0.5\n",
            Self.header + "article,on,1,data,none,system,1,ok,30,100,,,\n",
            Self.header + "article,on,1,data,none,system,1,timeout,,,,,\n",
            Self.header + "article,on,1,data,none,system,1,ok,30,inf,4,1,0.5\n",
            Self.header + "article,on,1,data,none,system,1,ok,30,100,4,nan,0.5\n",
            Self.header + "article,on,1,data,none,system,1,ok,30,100,4,-1,0.5\n",
        ] {
            #expect(throws: CSVError.self, "\(text)") { try ResidencyCost.parse(text) }
        }
    }

    /// The committed study has pairs of every cell it measured, several each.
    @Test func theCommittedStudyHasBothSidesOfEachCell() throws {
        let cost = try ResidencyCost.parse(try CommittedReportTests.read(ResidencyCost.fileName))
        let pairs = try #require(Int(cost.values()["residency_cost_pairs"] ?? ""))
        #expect(pairs >= 10 && pairs <= 100)
        #expect(Set(cost.runs.map(\.workload)) == ["article", "heic"])
    }
}
