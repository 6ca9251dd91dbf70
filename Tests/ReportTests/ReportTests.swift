import BenchCore
import Foundation
import Report
import Testing

@Suite struct DistributionTests {
    @Test func percentilesMatchNumpysDefault() throws {
        let distribution = try #require(Distribution([4.0, 1, 3, 2]))
        #expect(distribution.median == 2.5)
        #expect(abs(distribution.p90 - 3.7) < 1e-12)
        #expect(abs(distribution.p10 - 1.3) < 1e-12)
        #expect(distribution.min == 1 && distribution.max == 4)
    }

    @Test func coefficientOfVariationUsesSampleDeviation() throws {
        let distribution = try #require(Distribution([2.0, 4, 4, 4, 5, 5, 7, 9]))
        #expect(distribution.mean == 5)
        #expect(abs(distribution.standardDeviation - 2.138089935) < 1e-6)
        #expect(abs(distribution.coefficientOfVariation - 0.427617987) < 1e-6)
    }

    @Test func emptyHasNoDistribution() {
        #expect(Distribution([Double]()) == nil)
    }
}

@Suite struct CSVTests {
    @Test func quotesOnlyWhenNeededAndRoundTrips() throws {
        let fields = ["plain", "with,comma", "with \"quote\"", "line\nbreak", ""]
        let line = CSV.line(fields)
        #expect(line.hasPrefix("plain,\"with,comma\","))
        #expect(try CSV.parse(line + "\n") == [fields])
    }

    @Test func unterminatedQuoteIsAnError() {
        #expect(throws: CSVError.self) { try CSV.parse("a,\"b\n") }
    }
}

private func result(
    _ strategy: String,
    _ render: RenderMode,
    run: Int,
    baseline: Int,
    peak: Int,
    status: TrialStatus = .ok
) -> TrialResult {
    var row = okRow(TrialCell(strategy: strategy, render: render, allocator: .system), run: run, pid: Int32(1000 + run))
    row.status = status
    if status == .ok {
        row.baselineRSSBytes = baseline
        row.peakRSSBytes = peak
        row.payloadBytes = 13_100_000
    } else {
        row.error = "HTTP status 404"
    }
    return row
}

@Suite struct ExportTests {
    @Test func trialsCSVStartsWithTheDesignColumns() throws {
        let contract = [
            "strategy", "render", "allocator", "run", "pid", "payload_bytes", "baseline_rss_bytes",
            "peak_rss_bytes", "peak_rss_delta_bytes", "peak_allocated_bytes", "peak_allocated_delta_bytes",
            "final_rss_bytes", "duration_s", "status", "error",
        ]
        let rows = [
            result("data", .none, run: 1, baseline: 10, peak: 40),
            result("data", .none, run: 2, baseline: 0, peak: 0, status: .httpError),
        ]
        let parsed = try CSV.parse(TrialsCSV.render(rows))
        #expect(Array(parsed[0].prefix(contract.count)) == contract)
        #expect(parsed.count == 3)
        let delta = parsed[0].firstIndex(of: "peak_rss_delta_bytes")!
        #expect(parsed[1][delta] == "30")
        #expect(parsed[2][delta] == "", "a failed run has empty measurements, not zeros")
        #expect(parsed[2][parsed[0].firstIndex(of: "status")!] == "http_error")
    }

    @Test func summaryIgnoresFailedRunsAndShowsTheArticle() throws {
        let rows =
            [1, 2, 3].map { result("data", .none, run: $0, baseline: 0, peak: $0 * 1_000_000 + 20_000_000) }
            + [result("data", .none, run: 4, baseline: 0, peak: 0, status: .crashed)]
        let summaries = CellSummary.summarize(rows)
        #expect(summaries.count == 1)
        #expect(summaries[0].succeeded == 3 && summaries[0].failed == 1)
        #expect(summaries[0].peakRSSDelta?.median == 22_000_000)
        let table = SummaryTable.render(summaries)
        #expect(table.contains("3/4"))
        #expect(table.contains("22.0"))
        #expect(table.contains("~30"))
    }

    @Test func atomicWriteReplacesWholeFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("trials.csv")
        try AtomicFile.write("first\n", to: file)
        try AtomicFile.write("second\n", to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == "second\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["trials.csv"])
    }
}

@Suite struct TrialsCSVReadingTests {
    @Test func roundTripsEveryColumn() throws {
        var row = result("download", .full, run: 2, baseline: 1_000, peak: 97_000_000)
        row.peakAllocatedBytes = 96_500_000
        row.baselineAllocatedBytes = 500_000
        row.durationSeconds = 0.25
        row.samplerHertz = 2000
        let failed = result("data", .none, run: 1, baseline: 0, peak: 0, status: .httpError)
        let text = TrialsCSV.render([row, failed])
        let parsed = try TrialsCSV.parse(text)
        #expect(TrialsCSV.render(parsed) == text)
        #expect(parsed[0].peakRSSDeltaBytes == 96_999_000)
        #expect(parsed[1].status == .httpError && parsed[1].peakRSSBytes == nil)
    }

    @Test func malformedFilesNameTheProblem() {
        #expect(throws: CSVError.self) { try TrialsCSV.parse("") }
        #expect(throws: CSVError.self) { try TrialsCSV.parse("strategy,render\ndata,none\n") }
        #expect(throws: CSVError.self) {
            try TrialsCSV.parse("strategy,render,allocator,run,status\ndata,none,system,x,ok\n")
        }
        #expect(throws: CSVError.self) {
            try TrialsCSV.parse("strategy,render,allocator,run,status\ndata,none,tcmalloc,1,ok\n")
        }
        #expect(throws: CSVError.self) { try TrialsCSV.parse("strategy,render,allocator,run,status\ndata,none\n") }
    }
}

@Suite struct ConfidenceAndStabilityTests {
    @Test func bootstrapIntervalBracketsTheMedianAndIsReproducible() throws {
        let distribution = try #require(Distribution([10.0, 12, 11, 13, 50, 11, 12, 10, 12, 11]))
        let interval = distribution.medianConfidenceInterval()
        #expect(interval.low <= distribution.median && distribution.median <= interval.high)
        #expect(interval.low >= distribution.min && interval.high <= distribution.max)
        #expect(interval.high < 50, "one outlier must not drag the median's interval to it")
        #expect(distribution.medianConfidenceInterval() == interval, "seeded: same runs, same interval")
        let constant = try #require(Distribution([7.0, 7, 7, 7]))
        #expect(constant.medianConfidenceInterval() == (7, 7))
    }

    @Test func unstableCellsAreFlaggedButTinySpreadsAreNot() {
        let noisy = [20, 26, 31, 22, 35].enumerated().map {
            result("data", .none, run: $0 + 1, baseline: 0, peak: $1 * 1_000_000)
        }
        #expect(CellSummary(cell: noisy[0].cell, runs: noisy).stabilityWarning?.contains("unstable") == true)
        // 300-400 KB with a large CV: below the RSS counters' resolution, so not instability.
        let tiny = [300, 390, 310, 400, 305].enumerated().map {
            result("download", .none, run: $0 + 1, baseline: 0, peak: $1 * 1_000)
        }
        #expect(CellSummary(cell: tiny[0].cell, runs: tiny).stabilityWarning == nil)
        #expect(SummaryTable.render(CellSummary.summarize(noisy)).contains("warning:"))
    }

    @Test func summaryCSVHasOneRowPerCell() throws {
        let rows =
            [1, 2, 3].map { result("data", .none, run: $0, baseline: 0, peak: 30_000_000 + $0) }
            + [1, 2].map { result("download", .full, run: $0, baseline: 0, peak: 96_000_000) }
        let parsed = try CSV.parse(SummaryCSV.render(CellSummary.summarize(rows)))
        #expect(parsed.count == 3)
        let median = try #require(parsed[0].firstIndex(of: "peak_rss_delta_median_bytes"))
        #expect(parsed[1][median] == "30000002")
        #expect(parsed[1][try #require(parsed[0].firstIndex(of: "article_over_baseline_bytes"))] == "30000000")
    }
}

@Suite struct GeneratedSectionsTests {
    static let document = """
        Intro <!-- a plain comment --> stays.
        The payload is <!-- value:payload -->old<!-- /value:payload --> MB.
        <!-- table:numbers -->
        stale
        <!-- /table:numbers -->
        Outro.
        """

    @Test func replacesOnlyTheMarkedPartsAndIsIdempotent() throws {
        let once = try GeneratedSections.apply(
            to: Self.document,
            blocks: ["numbers": "| a |\n"],
            values: ["payload": "13.1"]
        )
        #expect(once.contains("The payload is <!-- value:payload -->13.1<!-- /value:payload --> MB."))
        #expect(once.contains("<!-- table:numbers -->\n| a |\n<!-- /table:numbers -->"))
        #expect(!once.contains("stale"))
        #expect(once.hasPrefix("Intro <!-- a plain comment --> stays.") && once.hasSuffix("Outro."))
        #expect(
            try GeneratedSections.apply(to: once, blocks: ["numbers": "| a |\n"], values: ["payload": "13.1"]) == once
        )
        #expect(GeneratedSections.block("numbers", in: once) == "\n| a |\n")
    }

    @Test func unknownNameIsAnErrorThatListsTheKnownOnes() {
        #expect {
            try GeneratedSections.apply(to: Self.document, blocks: [:], values: ["payload": "1"])
        } throws: { error in
            guard case .unknownMarker(let kind, let name, let known)? = error as? ReportError else { return false }
            return kind == "table" && name == "numbers" && known.isEmpty
        }
    }

    @Test func unclosedMarkerIsAnError() {
        #expect {
            try GeneratedSections.apply(to: "<!-- value:x -->1", blocks: [:], values: ["x": "2"])
        } throws: { error in
            guard case .unclosedMarker(let name, let closing)? = error as? ReportError else { return false }
            return name == "value:x" && closing == "<!-- /value:x -->"
        }
    }
}

@Suite struct LinearFitTests {
    @Test func recoversAnExactLine() throws {
        let fit = try #require(LinearFit([(1, 5), (2, 7), (4, 11), (8, 19)]))
        #expect(abs(fit.slope - 2) < 1e-12 && abs(fit.intercept - 3) < 1e-12)
        #expect(abs(fit(10) - 23) < 1e-12)
    }

    @Test func needsTwoDistinctXs() {
        #expect(LinearFit([(1, 5)]) == nil)
        #expect(LinearFit([(1, 5), (1, 6)]) == nil)
    }
}

@Suite struct MarkdownTableTests {
    @Test func parsesWhatItRenders() {
        let text = MarkdownTable.render(
            header: ["case", "MB"],
            rows: [["a | b", "1.0"], ["c", "2.5"]],
            leftAligned: 1
        )
        #expect(text.contains("|---|---:|"))
        #expect(MarkdownTable.parse(text) == [["case", "MB"], ["a | b", "1.0"], ["c", "2.5"]])
    }
}
