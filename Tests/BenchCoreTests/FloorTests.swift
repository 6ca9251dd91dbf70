import BenchCore
import Foundation
import Testing

/// The floor's rules (docs/MEASUREMENT.md, "The floor"), computed from the image and the rules of
/// the strategy and renderer; and the files that carry it and the holders' roles still read
/// when they come from before them.
@Suite struct FloorTests {
    /// A trial of data with `render`, nothing measured.
    static func result(_ render: RenderMode) -> TrialResult {
        let cell = TrialCell(strategy: "data", render: render, allocator: .system)
        return TrialResult(cell: cell, run: 1, pid: 1)
    }

    /// A CSV file as written before its last `count` columns existed: the same rows without them.
    static func droppingLastColumns(_ count: Int, of text: String) throws -> String {
        try CSV.parse(text).filter { $0 != [""] }.map { CSV.line(Array($0.dropLast(count))) + "\n" }.joined()
    }

    /// The longer side at --max-pixel, the other in proportion, rounded: the article's image at
    /// 1024 px keeps 1024 x 683; portrait the same turned; an image that fits keeps its size.
    @Test func aScaledBitmapKeepsTheAspectAndIsNeverUpscaled() {
        #expect(FloorParts.scaledSize(width: 6000, height: 4000, maxPixel: 1024) == (1024, 683))
        #expect(FloorParts.scaledSize(width: 4000, height: 6000, maxPixel: 1024) == (683, 1024))
        #expect(FloorParts.scaledSize(width: 800, height: 600, maxPixel: 1024) == (800, 600))
        #expect(FloorParts.scaledSize(width: 30000, height: 16, maxPixel: 1024) == (1024, 1))
    }

    /// The body once for an in-memory API, a fixed buffer for a streaming one; a bitmap beside the
    /// body when decoding from memory, alone from a file; the larger of fetch and render.
    @Test func theFloorOfEachRuleAndWhereTheBodyIs() throws {
        let body = 13_108_402
        let width = 6000
        let height = 4000
        func floor(_ fetch: FetchFloor, _ render: RenderFloor, inMemory: Bool) -> FloorParts? {
            FloorParts.of(
                fetch: fetch,
                render: render,
                payloadBytes: body,
                bodyInMemory: inMemory,
                imageWidth: width,
                imageHeight: height,
                maxPixel: 1024
            )
        }
        let buffer = FetchFloor.streamingBuffer(bytes: FetchFloor.fileStreamingBufferBytes)
        #expect(floor(.bodyInMemory, .nothing, inMemory: true) == FloorParts(bodyBytes: body))
        #expect(
            floor(buffer, .nothing, inMemory: false)
                == FloorParts(bodyBufferBytes: FetchFloor.fileStreamingBufferBytes)
        )
        #expect(
            floor(.bodyInMemory, .fullBitmap, inMemory: true)
                == FloorParts(bodyBytes: body, bitmapBytes: width * height * 4)
        )
        #expect(floor(buffer, .fullBitmap, inMemory: false) == FloorParts(bitmapBytes: width * height * 4))
        #expect(floor(buffer, .scaledBitmap, inMemory: false)?.totalBytes == 1024 * 683 * 4)
        #expect(floor(.bodyInMemory, .scaledBitmap, inMemory: true)?.totalBytes == body + 1024 * 683 * 4)
        // A thumbnail smaller than a streaming buffer: the fetch's buffer is the larger need.
        let tiny = FloorParts.of(
            fetch: buffer,
            render: .scaledBitmap,
            payloadBytes: 500,
            bodyInMemory: false,
            imageWidth: 64,
            imageHeight: 48,
            maxPixel: 16
        )
        #expect(tiny == FloorParts(bodyBufferBytes: FetchFloor.fileStreamingBufferBytes))
    }

    /// An undeclared rule, or a bitmap of an image whose size is unknown, gives no floor.
    @Test func anUndeclaredRuleOrAnUnknownSizeGivesNoFloor() {
        #expect(
            FloorParts.of(
                fetch: .undeclared,
                render: .nothing,
                payloadBytes: 10,
                bodyInMemory: true,
                imageWidth: nil,
                imageHeight: nil,
                maxPixel: 1024
            ) == nil
        )
        #expect(
            FloorParts.of(
                fetch: .bodyInMemory,
                render: .undeclared,
                payloadBytes: 10,
                bodyInMemory: true,
                imageWidth: 10,
                imageHeight: 10,
                maxPixel: 1024
            ) == nil
        )
        #expect(
            FloorParts.of(
                fetch: .bodyInMemory,
                render: .fullBitmap,
                payloadBytes: 10,
                bodyInMemory: true,
                imageWidth: nil,
                imageHeight: nil,
                maxPixel: 1024
            ) == nil
        )
    }

    /// trials.csv's last column is floor_bytes: written and read back; a file from before it (the
    /// same rows without the column) still reads, its floors not known.
    @Test func floorBytesIsTrialsCSVsLastColumnAndOldFilesStillRead() throws {
        #expect(TrialsCSV.columns.last?.name == "floor_bytes")
        var row = Self.result(.full)
        row.floorBytes = 2_796_544
        let written = TrialsCSV.render([row])
        #expect(try TrialsCSV.parse(written).first?.floorBytes == 2_796_544)
        let oldText = try Self.droppingLastColumns(1, of: written)
        #expect(!oldText.contains("floor_bytes"))
        let old = try TrialsCSV.parse(oldText)
        #expect(old.count == 1 && old.allSatisfy { $0.floorBytes == nil && $0.strategy == "data" })
    }

    /// holders.csv's role comes after the columns older files have (then resident_bytes): written and
    /// read back; a file from before them (the same rows without the two columns) reads with no roles.
    @Test func roleIsHoldersCSVsLastColumnAndOldFilesStillRead() throws {
        #expect(Array(HoldersCSV.header.suffix(2)) == ["role", "resident_bytes"])
        var result = Self.result(.none)
        result.peakHeapExactBytes = 3_000
        result.holders = [
            PeakHolder(
                bytes: 2_000,
                blocks: 1,
                allocatedBy: "a",
                module: "m",
                stack: ["a"],
                role: .bodyBuffer
            )
        ]
        let written = HoldersCSV.render([result], runID: "x")
        let run = try #require(try HoldersCSV.parse(written).first)
        #expect(run.holders.map(\.role) == [.bodyBuffer])
        #expect(HoldersCSV.rows(of: result).last?.role == .other, "the small blocks")
        let oldText = try Self.droppingLastColumns(2, of: written)
        let old = try HoldersCSV.parse(oldText)
        #expect(old.count == 1 && old.allSatisfy { $0.holders.count == 1 && $0.holders.allSatisfy { $0.role == nil } })
    }

    /// The excess by role: each role's bytes at the peak less its part of the floor; `other` takes
    /// the rest, so that the roles add up to the exact heap peak over the floor.
    @Test func theExcessByRoleAddsUpToTheHeapPeakOverTheFloor() throws {
        var result = Self.result(.none)
        result.baselineHeapExactBytes = 400_000
        result.peakHeapExactBytes = 30_500_000
        result.holders = [
            PeakHolder(
                bytes: 16_781_296,
                blocks: 1,
                allocatedBy: "byAppending",
                module: "",
                stack: [],
                role: .bodyBuffer
            ),
            PeakHolder(bytes: 13_111_280, blocks: 1, allocatedBy: "completeTask", module: "", stack: [], role: .body),
        ]
        result.floorParts = FloorParts(bodyBytes: 13_108_402)
        result.floorBytes = 13_108_402
        let excess = try #require(FloorExcess.of(result))
        #expect(excess.heapBytes == 30_100_000 - 13_108_402)
        #expect(excess.byRole.reduce(0) { $0 + $1.bytes } == excess.heapBytes)
        let first = try #require(excess.byRole.first)
        #expect(first.role == .bodyBuffer && first.bytes == 16_781_296 && first.largestHolder == "byAppending")
        #expect(excess.byRole.first { $0.role == .body }?.bytes == 13_111_280 - 13_108_402)
        #expect(excess.rolesText.hasPrefix("+16.8 MB body-buffer (byAppending)"), "\(excess.rolesText)")
    }
}
