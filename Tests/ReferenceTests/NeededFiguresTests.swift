import BenchCore
import Foundation
import ReferenceDocuments
import Report
import Testing

/// "Who holds the peak, and how much of it is needed" and the README summary's floor, from small
/// fixtures whose floors, holders by role and residency are known: the tables show exactly those.
@Suite struct NeededFiguresTests {
    /// A table's row whose first cells are `labels`, as cells by header.
    func row(_ table: String, _ labels: [String]) throws -> [String: String] {
        let cells = MarkdownTable.parse(table)
        let header = try #require(cells.first, "no header in\n\(table)")
        let found = try #require(
            cells.dropFirst().first { Array($0.prefix(labels.count)) == labels },
            "no row \(labels) in\n\(table)"
        )
        return Dictionary(zip(header, found)) { first, _ in first }
    }

    // MARK: Every encoding (encodings.csv and its holders and residency files)

    static let encodingsHeader =
        "encoding,tool,render,allocator,run,payload_bytes,image_width,image_height,"
        + "output_width,output_height,peak_rss_delta_bytes,peak_heap_delta_bytes,status,error,tool_version,"
        + "render_seconds,floor_bytes\n"
    /// png-rgb full, 2000 x 1000: floor = the bitmap, 8.0 MB; two runs whose heap peaks are 11 and 13 MB.
    static let encodings =
        encodingsHeader
        + "png-rgb,ours,full,system,1,3000000,2000,1000,2000,1000,10650000,11000000,ok,,,0.5,8000000\n"
        + "png-rgb,ours,full,system,2,3000000,2000,1000,2000,1000,12750000,13000000,ok,,,0.5,8000000\n"
        + "png-rgb,vipsthumbnail,thumbnail,system,1,3000000,2000,1000,,,5000000,,ok,,libvips 8.14.1,,\n"
    static let holdersHeader =
        "encoding,run_id,strategy,render,allocator,run,rank,bytes,blocks,allocated_by,module,"
        + "role,resident_bytes\n"
    /// Each run: the bitmap (its floor exactly), the decoder's rows (2.5 then 4.5 MB), the small blocks.
    static let holders =
        holdersHeader
        + "png-rgb,r,download,full,system,1,1,8000000,1,DecodedImage.init(width:height:),bench,bitmap,8000000\n"
        + "png-rgb,r,download,full,system,1,2,2500000,1,png_malloc,libpng16.so,decoder,2400000\n"
        + "png-rgb,r,download,full,system,1,3,300000,0,small blocks,,other,\n"
        + "png-rgb,r,download,full,system,2,1,8000000,1,DecodedImage.init(width:height:),bench,bitmap,8000000\n"
        + "png-rgb,r,download,full,system,2,2,4500000,1,png_malloc,libpng16.so,decoder,4400000\n"
        + "png-rgb,r,download,full,system,2,3,300000,0,small blocks,,other,\n"
    static let residencyHeader = "encoding,run_id,strategy,render,allocator,run,moment,category,how,bytes\n"
    static func residencyRows(run: Int, holders: Int, moment: String = "rss-peak") -> String {
        [
            ("heap-holders", holders), ("small-heap-blocks", 300_000), ("allocator-free", 1_000_000),
            ("thread-stacks", 100_000), ("file-backed", 200_000), ("other-anonymous", 0), ("unattributed", 60_000),
        ]
        .map { "png-rgb,r,download,full,system,\(run),\(moment),\($0.0),measured,\($0.1)\n" }.joined()
    }
    /// RSS peaks 10.65 and 12.75 MB: the heap holders' resident bytes 9.0 and 11.0 MB; the end's rows differ.
    static let residency =
        residencyHeader + residencyRows(run: 1, holders: 9_000_000)
        + residencyRows(run: 1, holders: 1_000_000, moment: "end") + residencyRows(run: 2, holders: 11_000_000)
        + residencyRows(run: 2, holders: 2_000_000, moment: "end")

    /// The floor is the bitmap (8.0); the heap's 12.0 median peak is 4.0 over it: the decoder's 3.5
    /// (the median of 2.5 and 4.5) and 0.5 of small blocks, nothing for the bitmap, which is floor.
    @Test func everyEncodingsFloorAndExcessByRole() throws {
        let breakdown = try EncodingBreakdown.parse(
            encodings: Self.encodings,
            holders: Self.holders,
            residency: Self.residency
        )
        let heap = try row(breakdown.floorTable(), ["png-rgb", "full", "system"])
        #expect(heap["floor"] == "8.0")
        #expect(heap["exact heap peak"] == "12.0")
        #expect(heap["over the floor"] == "4.0")
        #expect(heap["body-buffer"] == "0.0" && heap["bitmap"] == "0.0" && heap["cache"] == "0.0")
        #expect(heap["decoder"] == "3.5")
        #expect(heap["other"] == "0.5")
        #expect(heap["body"] == nil, "the body column only when some case holds the body beyond its floor")
        #expect(!breakdown.floorTable().contains("vipsthumbnail"), "the peer has no floor or holders")
    }

    /// The RSS peak's categories at the rss-peak moment, medians over the runs; the end's rows are not the peak.
    @Test func everyEncodingsPeakRSSByCategory() throws {
        let breakdown = try EncodingBreakdown.parse(
            encodings: Self.encodings,
            holders: Self.holders,
            residency: Self.residency
        )
        let rss = try row(breakdown.residencyTable(), ["png-rgb", "full", "system"])
        #expect(rss["floor"] == "8.0")
        #expect(rss["peak RSS"] == "11.7")
        #expect(rss["heap-holders"] == "10.0")
        #expect(rss["small-heap-blocks"] == "0.3" && rss["allocator-free"] == "1.0" && rss["thread-stacks"] == "0.1")
        #expect(rss["file-backed"] == "0.2" && rss["other-anonymous"] == "0.0" && rss["unattributed"] == "0.1")
    }

    /// Files measured before floors, roles and residency: a note and dashes, not an error.
    @Test func encodingsWithoutTheNewColumnsGetANote() throws {
        let old =
            Self.encodings.split(separator: "\n").map { line in
                line.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",")
            }.joined(separator: "\n") + "\n"
        let breakdown = try EncodingBreakdown.parse(encodings: old, holders: nil, residency: nil)
        let table = breakdown.floorTable()
        #expect(table.contains("no floors, holders by role or residency"), "\(table)")
        let heap = try row(table, ["png-rgb", "full", "system"])
        #expect(heap["floor"] == "–" && heap["decoder"] == "–")
        #expect(heap["exact heap peak"] == "12.0")
        #expect(try row(breakdown.residencyTable(), ["png-rgb", "full", "system"])["heap-holders"] == "–")
    }

    // MARK: The article's cases (results/holders/trials.json)

    /// A row of `strategy`+`render` under `allocator`, run `run`, nothing measured yet.
    static func row(_ strategy: String, _ render: RenderMode, _ allocator: Allocator, run: Int) -> TrialResult {
        TrialResult(cell: TrialCell(strategy: strategy, render: render, allocator: allocator), run: run, pid: 1)
    }

    /// data+none: a 13.0 MB body held once as the body (its floor), a 16.0 MB growing buffer, 0.5 MB
    /// of small blocks over a 0.3 MB baseline. `withFloor` false: a run from before floor_bytes.
    static func dataTask(_ allocator: Allocator, run: Int, withFloor: Bool) -> TrialResult {
        var trial = Self.row("data", .none, allocator, run: run)
        trial.status = .ok
        trial.payloadBytes = 13_000_000
        trial.baselineHeapExactBytes = 300_000
        trial.peakHeapExactBytes = 29_500_000
        trial.baselineRSSBytes = 40_000_000
        trial.peakRSSBytes = 66_000_000
        trial.holders = [
            PeakHolder(
                bytes: 16_000_000,
                blocks: 1,
                allocatedBy: "byAppending(bodyData:)",
                module: "libFoundationNetworking.so",
                stack: [],
                role: .bodyBuffer,
                residentBytes: 13_000_000
            ),
            PeakHolder(
                bytes: 13_000_000,
                blocks: 1,
                allocatedBy: "completeTask()",
                module: "libFoundationNetworking.so",
                stack: [],
                role: .body,
                residentBytes: 13_000_000
            ),
        ]
        if withFloor {
            trial.floorParts = FloorParts(bodyBytes: 13_000_000)
            trial.floorBytes = 13_000_000
            trial.residency =
                ResidencyRow.rows(
                    moment: .rssPeak,
                    rssDelta: 26_000_000,
                    deltas: [
                        .heapHolders: 22_000_000, .smallHeapBlocks: 500_000, .allocatorFree: 3_000_000,
                        .fileBacked: 400_000,
                    ]
                )
                + ResidencyRow.rows(moment: .end, rssDelta: 13_000_000, deltas: [.heapHolders: 13_000_000])
        }
        return trial
    }

    /// The floor is the body (13.0), by the run's floor_bytes or, for an older run, by the rule; the
    /// 29.2 MB heap peak is 16.2 over it: 16.0 body-buffer and 0.2 other.
    @Test func articleCasesFloorAndExcessByRole() throws {
        let trials =
            [1, 2].map { Self.dataTask(.system, run: $0, withFloor: true) }
            + [1, 2].map { Self.dataTask(.jemalloc, run: $0, withFloor: false) }
        let figures = HolderFigures(trials: trials)
        let table = figures.floorTable()
        for allocator in Allocator.allCases {
            let heap = try row(table, ["data task", allocator.title])
            #expect(heap["floor"] == "13.0", "\(allocator)")
            #expect(heap["exact heap peak"] == "29.2" && heap["over the floor"] == "16.2", "\(allocator)")
            #expect(heap["body-buffer"] == "16.0" && heap["other"] == "0.2", "\(allocator)")
            #expect(heap["bitmap"] == "0.0" && heap["decoder"] == "0.0", "\(allocator)")
        }
        let rss = try row(figures.residencyTable(), ["data task", Allocator.system.title])
        #expect(rss["peak RSS"] == "26.0" && rss["heap-holders"] == "22.0" && rss["allocator-free"] == "3.0")
        #expect(rss["unattributed"] == "0.1", "26.0 less 22.0, 0.5, 3.0 and 0.4")
        #expect(try row(figures.residencyTable(), ["data task", Allocator.jemalloc.title])["heap-holders"] == "–")
    }

    /// download+none: no block over the recording threshold, so its 0.4 MB heap peak is all small
    /// blocks: 0.3 over the 64 KiB floor, the floor's buffer not held by a recorded block (-0.1), the rest `other`.
    @Test func aRunWithoutLargeBlocksHasItsExcessInOther() throws {
        var trial = Self.row("download", .none, .system, run: 1)
        trial.status = .ok
        trial.payloadBytes = 13_000_000
        trial.baselineHeapExactBytes = 300_000
        trial.peakHeapExactBytes = 700_000
        trial.holders = []
        trial.floorParts = FloorParts(bodyBufferBytes: 65_536)
        trial.floorBytes = 65_536
        let heap = try row(HolderFigures(trials: [trial]).floorTable(), ["download task", Allocator.system.title])
        #expect(heap["floor"] == "0.1" && heap["exact heap peak"] == "0.4" && heap["over the floor"] == "0.3")
        #expect(heap["body-buffer"] == "-0.1" && heap["other"] == "0.4" && heap["bitmap"] == "0.0")
    }

    /// A figure that rounds to zero reads 0.0, never -0.0.
    @Test func nothingReadsMinusZero() {
        #expect(NeededTables.mb(-20_000) == "0.0" && NeededTables.mb(20_000) == "0.0")
        #expect(NeededTables.mb(-60_000) == "-0.1" && NeededTables.mb(60_000) == "0.1")
    }

    // MARK: README's summary table

    /// The article's four cases from a trials.csv without floor_bytes: each floor by its rule (the
    /// body; the 64 KiB buffer; the bitmap; the body beside the bitmap), and a run's own floor_bytes
    /// where it has one.
    @Test func summaryShowsTheFloorByRuleOrByTheRun() throws {
        var trials: [TrialResult] = []
        let cases = [("data", RenderMode.none), ("download", .none), ("data", .full), ("download", .full)]
        for (strategy, render) in cases {
            for run in 1...3 {
                var trial = Self.row(strategy, render, .system, run: run)
                trial.status = .ok
                trial.payloadBytes = 13_108_402
                trial.baselineRSSBytes = 40_000_000
                trial.peakRSSBytes = 60_000_000 + run
                if render == .full { (trial.imageWidth, trial.imageHeight) = (6000, 4000) }
                if strategy == "download" && render == .none { trial.floorBytes = 5_000_000 }
                trials.append(trial)
            }
        }
        let figures = ReportFigures(chart: ChartData(trials: trials, timelines: [:], sweep: []))
        let lines = figures.articleSummaryTable().split(separator: "\n")
            .map { $0.split(separator: " ").map(String.init) }
        let header = try #require(lines.first { $0.first == "cell" })
        #expect(header.contains("floor"))
        func floor(_ cell: String) throws -> String {
            // cell (two words), ok, median, 95% CI, p90, min, max, CV, heap peak, final, floor, article
            let line = try #require(lines.first { $0.count > 11 && "\($0[0]) \($0[1])" == cell }, "no \(cell)")
            return line[11]
        }
        #expect(try floor("data+none [system]") == "13.1")
        #expect(try floor("download+none [system]") == "5.0", "the run's floor_bytes, not the rule's buffer")
        #expect(try floor("download+full [system]") == "96.0")
        #expect(try floor("data+full [system]") == "109.1")
    }

    // MARK: Settings as data

    /// A holders folder's `--max-pixel` is read from its settings.json, however the command line spelt
    /// it (`--max-pixel=512`): a thumbnail run without floor_bytes gets the floor of a 512-px bitmap
    /// (512 x 341 x 4 for 6000 x 4000). A folder without settings.json has no scaled floor: unknown,
    /// not the default.
    @Test func aScaledFloorUsesTheRecordedMaxPixelAndNoGuess() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("settings-as-data-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var trials: [TrialResult] = []
        for render in [RenderMode.full, .thumbnail] {
            var trial = Self.row("download", render, .system, run: 1)
            trial.status = .ok
            trial.payloadBytes = 13_000_000
            trial.imageWidth = 6000
            trial.imageHeight = 4000
            trial.baselineHeapExactBytes = 300_000
            trial.peakHeapExactBytes = render == .full ? 96_500_000 : 1_200_000
            trial.holders = []
            trials.append(trial)
        }
        let context = RunContext(
            command: "bench run --strategy download --render full,thumbnail --max-pixel=512",
            source: "embedded fixture",
            payloadBytes: 13_000_000,
            runsPerCell: 1,
            sampleIntervalNanos: 500_000
        )
        try JSONExport(context: context, trials: trials).encoded()
            .write(to: folder.appendingPathComponent(JSONExport.fileName))
        func thumbnailFloor() throws -> Int? {
            let figures = try #require(try HolderFigures.load(from: folder))
            return figures.flooredTrials.first { $0.render == .thumbnail }?.floorBytes
        }
        #expect(try thumbnailFloor() == nil, "no settings.json: the --max-pixel is unknown")
        try RunSettings(command: "run", runID: "r", settings: [("--max-pixel", "512")], provenance: nil)
            .write(into: folder)
        #expect(try thumbnailFloor() == 512 * 341 * 4)
    }
}
