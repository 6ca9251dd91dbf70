import BenchCore
import Foundation
import Harness
import Report
import TestSupport
import Testing

/// Builds Examples/AsyncHTTPClientLoader, a package that depends on this one through the
/// ImageMemoryBench product, and measures its own strategies with its own executable, as a user
/// would. Its first build takes minutes (AsyncHTTPClient, BoringSSL), so it runs only with
/// BENCH_EXAMPLE=1: `make example-test`, which .ci/run calls after `make test`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["BENCH_EXAMPLE"] == "1"))
struct ExampleLoaderTests {
    static let example = packageRoot.appendingPathComponent("Examples/AsyncHTTPClientLoader")

    /// The example's executable, built in release as `bench-reference measure example` builds it.
    static func build() throws -> String {
        let swift = ProcessInfo.processInfo.environment["SWIFT_EXEC_FOR_EXAMPLE"] ?? "swift"
        let output = try BenchProcess.run(
            [swift, "build", "-c", "release", "--package-path", example.path],
            program: "/usr/bin/env",
            timeout: 1800
        )
        #expect(
            output.status == 0,
            "swift build of the example failed:\n\(output.standardOutput)\n\(output.standardError)"
        )
        return example.appendingPathComponent(".build/release/ahc-bench").path
    }

    @Test func listMarksTheUsersStrategies() throws {
        let executable = try Self.build()
        let list = try BenchProcess.run(["list"], program: executable)
        #expect(list.status == 0)
        let lines = list.standardOutput.split(separator: "\n").map(String.init)
        for name in ["ahc-collect", "ahc-file"] {
            #expect(
                lines.contains { $0.hasPrefix("  \(name) ") && $0.contains("[yours]") },
                "\(name) missing or unmarked"
            )
        }
        #expect(lines.contains { $0.hasPrefix("  download ") && !$0.contains("[yours]") })
        let renderers = try #require(lines.firstIndex(of: "Renderers (--render):"))
        #expect(lines[renderers...].contains { $0.hasPrefix("  decode-then-resize ") && $0.contains("[yours]") })
        #expect(lines[renderers...].contains { $0.hasPrefix("  thumbnail ") && !$0.contains("[yours]") })
    }

    /// Usage errors name the user's executable, not `bench`.
    @Test func usageErrorsNameTheUsersExecutable() throws {
        let executable = try Self.build()
        let output = try BenchProcess.run(["run", "--render", "sideways"], program: executable)
        #expect(output.status == 64)
        #expect(output.standardError.contains("ahc-bench run"), "\(output.standardError)")
        let valid =
            output.standardError.components(separatedBy: "valid: ").dropFirst().first?.prefix { $0 != "\n" } ?? ""
        #expect(
            valid.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains("decode-then-resize"),
            "the user's renderer is a valid choice: \(output.standardError)"
        )
    }

    /// The example's own renderer, run in the user's children beside the built-in full decode: it
    /// decodes the whole image, then keeps only a bitmap of --max-pixel on its longer side.
    @Test func measuresTheUsersRendererBesideABuiltIn() throws {
        let executable = try Self.build()
        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try BenchProcess.run(
            [
                "run", "--strategy", "download", "--render", "decode-then-resize", "--render", "full",
                "--allocator", "system", "--runs", "2", "--out", out.path,
            ],
            program: executable,
            timeout: 600
        )
        #expect(run.status == 0, "\(run.standardError)")
        let rows = try TrialsCSV.parse(String(contentsOf: out.appendingPathComponent("trials.csv"), encoding: .utf8))
        #expect(rows.count == 4)
        #expect(
            rows.allSatisfy { $0.isSuccess && $0.peakHeapExactDeltaBytes != nil },
            "\(rows.map { "\($0.render) \($0.status) \($0.error)" })"
        )
        #expect(Set(rows.map(\.pid)).count == rows.count, "every run needs a child of its own")
        try ExampleRelation.checkRenderer(rows, maxPixel: 1024)
    }

    /// The user's two strategies and a built-in one, each run in a fresh child of the user's
    /// executable, with the exact heap peak that the library links into it.
    @Test func measuresTheUsersStrategiesBesideABuiltIn() throws {
        let executable = try Self.build()
        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try BenchProcess.run(
            [
                "run", "--strategy", "ahc-collect", "--strategy", "ahc-file", "--strategy", "download",
                "--render", "none", "--allocator", "system", "--runs", "2", "--out", out.path,
            ],
            program: executable,
            timeout: 600
        )
        #expect(run.status == 0, "\(run.standardError)")
        let rows = try TrialsCSV.parse(String(contentsOf: out.appendingPathComponent("trials.csv"), encoding: .utf8))
        #expect(rows.count == 6)
        for row in rows {
            #expect(row.isSuccess, "\(row.strategy) run \(row.run): \(row.status) \(row.error)")
            #expect(row.peakHeapExactDeltaBytes != nil, "\(row.strategy): no exact heap peak")
        }
        #expect(Set(rows.map(\.pid)).count == rows.count, "every run needs a child of its own")
        #expect(rows.allSatisfy { $0.pid != 0 })

        try ExampleRelation.check(rows)

        // A user's strategy gets the same holders: the collected body's largest is NIO's ByteBuffer
        // storage (statically linked into the user's executable), at least a payload.
        let holders = try HoldersCSV.parse(
            String(contentsOf: out.appendingPathComponent("holders.csv"), encoding: .utf8)
        )
        let payload = try #require(rows.compactMap(\.payloadBytes).max())
        for run in holders where run.cell.strategy == "ahc-collect" {
            let largest = try #require(run.holders.first, "ahc-collect run \(run.run) has no holders")
            #expect(largest.stack.contains { $0.contains("ByteBuffer") }, "\(largest.allocatedBy): \(largest.stack)")
            #expect(
                largest.module == "ahc-bench" && largest.bytes >= payload && largest.bytes <= 2 * payload,
                "\(largest.bytes) B by \(largest.allocatedBy) in \(largest.module)"
            )
        }
        #expect(holders.filter { $0.cell.strategy == "ahc-collect" }.count == 2)

        // The user's strategies declare their floors: the body once, or a streaming buffer; the
        // collected body's storage, still held by the caller, is the `body`.
        for row in rows where row.strategy.hasPrefix("ahc-") {
            let expected = row.strategy == "ahc-collect" ? row.payloadBytes : FetchFloor.fileStreamingBufferBytes
            #expect(row.floorBytes == expected, "\(row.cell) run \(row.run)")
        }
        for run in holders where run.cell.strategy == "ahc-collect" {
            #expect(run.holders.first?.role == .body, "\(run.holders.map { "\($0.allocatedBy) \($0.role as Any)" })")
        }
        #expect(run.standardOutput.contains("ahc-collect+none [system]: floor "), "\(run.standardOutput)")
    }

    /// The user's strategies and renderer in the image server, unchanged: the server makes a strategy
    /// per request, on its fetch pool, in a child of the user's executable, and renders with the user's
    /// renderer as with a built-in one; each run answers every request, with an exact heap peak and the
    /// floor the strategies and renderers declare.
    @Test func servesImagesWithTheUsersStrategies() throws {
        let executable = try Self.build()
        let out = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try BenchProcess.run(
            [
                "scenario", "image-server", "--strategy", "ahc-collect,ahc-file", "--render",
                "stream,decode-then-resize",
                "--concurrency", "1,2", "--requests", "6", "--runs", "1", "--width", "1600", "--height", "1200",
                "--out", out.path,
            ],
            program: executable,
            timeout: 600
        )
        #expect(run.status == 0, "\(run.standardError)")
        let table = try CSV.parse(String(contentsOf: out.appendingPathComponent("server.csv"), encoding: .utf8))
            .filter { $0 != [""] }
        let header = try #require(table.first)
        let rows = table.dropFirst().map { Dictionary(zip(header, $0), uniquingKeysWith: { first, _ in first }) }
        #expect(rows.count == 8)
        for row in rows {
            let cell = "\(row["strategy"] ?? "")+\(row["render"] ?? "") C \(row["concurrency"] ?? "")"
            #expect(row["status"] == "ok", "\(cell): \(row["error"] ?? "")")
            #expect(row["requests_ok"] == "6", "\(cell)")
            #expect(Int(row["peak_heap_exact_delta_bytes"] ?? "").map { $0 > 0 } == true, "\(cell)")
            #expect(Int(row["floor_bytes"] ?? "").map { $0 > 0 } == true, "\(cell)")
        }
        #expect(Set(rows.compactMap { $0["strategy"] }) == ["ahc-collect", "ahc-file"])
        #expect(Set(rows.compactMap { $0["render"] }) == ["stream", "decode-then-resize"])
    }
}

/// The relation the example's table rests on: collecting the body holds at least the payload more
/// heap than streaming it to a file, and not more than a power-of-two buffer and the block it
/// grew from (under 3 payloads) more.
enum ExampleRelation {
    static func check(_ rows: [TrialResult]) throws {
        func medianHeap(_ strategy: String) throws -> Double {
            let peaks = rows.filter { $0.strategy == strategy && $0.isSuccess }.compactMap(\.peakHeapExactDeltaBytes)
            return try #require(Distribution(peaks.map(Double.init))).median
        }
        let payload = Double(try #require(rows.compactMap(\.payloadBytes).max()))
        let extra = try medianHeap("ahc-collect") - medianHeap("ahc-file")
        #expect(extra >= payload, "ahc-collect holds \(extra) bytes more heap than ahc-file; a payload is \(payload)")
        #expect(
            extra <= 3 * payload,
            "ahc-collect holds \(extra) bytes more heap than ahc-file, over 3 payloads (\(payload))"
        )
    }

    /// The example's decode-then-resize renderer: its row records the small bitmap's size; its heap
    /// peak holds the full bitmap and the small one at once (at least both, at most what the built-in
    /// full decode peaks at plus the small bitmap and 1 MB); its final reading no longer holds the
    /// full bitmap (under glibc a freed block that size goes back to the system at once).
    static func checkRenderer(_ rows: [TrialResult], maxPixel: Int) throws {
        let resized = rows.filter { $0.render.rawValue == "decode-then-resize" }
        let full = rows.filter { $0.render == .full }
        let width = try #require(full.first?.imageWidth)
        let height = try #require(full.first?.imageHeight)
        let bitmap = Double(width * height * 4)
        for row in resized {
            #expect(
                max(row.imageWidth ?? 0, row.imageHeight ?? 0) == maxPixel,
                "\(row.imageWidth ?? 0)x\(row.imageHeight ?? 0)"
            )
            // The renderer's declared floor: the bitmap at --max-pixel, aspect kept.
            let (floorWidth, floorHeight) = FloorParts.scaledSize(width: width, height: height, maxPixel: maxPixel)
            #expect(row.floorBytes == floorWidth * floorHeight * 4, "decode-then-resize's floor")
        }
        let small = Double(
            try #require(
                resized.first.flatMap { row in row.imageWidth.flatMap { w in row.imageHeight.map { w * $0 * 4 } } }
            )
        )
        func median(_ rows: [TrialResult], _ value: (TrialResult) -> Int?) throws -> Double {
            try #require(Distribution(rows.compactMap(value).map(Double.init))).median
        }
        let resizedPeak = try median(resized, \.peakHeapExactDeltaBytes)
        let fullPeak = try median(full, \.peakHeapExactDeltaBytes)
        #expect(
            resizedPeak >= bitmap + small,
            "decode-then-resize's heap peak \(resizedPeak) is under the full bitmap and the small one (\(bitmap + small))"
        )
        #expect(
            resizedPeak <= fullPeak + small + 1_000_000,
            "decode-then-resize's heap peak \(resizedPeak) is over full's \(fullPeak) + the small bitmap + 1 MB"
        )
        let resizedFinal = try median(resized, \.finalRSSDeltaBytes)
        let fullFinal = try median(full, \.finalRSSDeltaBytes)
        #expect(
            resizedFinal <= fullFinal - bitmap * 0.9,
            "decode-then-resize ends at \(resizedFinal) bytes over baseline, full at \(fullFinal)"
        )
        #expect(
            resizedFinal >= small * 0.5,
            "decode-then-resize ends at \(resizedFinal) bytes over baseline, under half the small bitmap it keeps (\(small))"
        )
    }
}
