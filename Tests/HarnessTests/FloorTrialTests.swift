import BenchCore
import Foundation
import TestSupport
import Testing

/// Floors and holders' roles in real children: the floor is computed from the image and the
/// cell's rules (docs/MEASUREMENT.md, "The floor"), the roles come from the holders' frames, and
/// the summary and `bench compare` show the excess over the floor by role.
@Suite(.serialized) struct FloorTrialTests {
    static func measure(
        _ arguments: [String],
        environment: [String: String] = [:]
    )
        throws -> (folder: URL, trials: [TrialResult], holders: [HolderRun], output: String)
    {
        let folder = BenchProcess.temporaryFolder()
        let output = try BenchProcess.run(["run"] + arguments + ["--out", folder.path], extraEnvironment: environment)
        #expect(output.status == 0, "\(output.standardError)")
        func text(_ name: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        let trials = try TrialsCSV.parse(text("trials.csv"))
        let holders = try HoldersCSV.parse(text("holders.csv"))
        return (folder, trials, holders, output.standardOutput)
    }

    static func mb(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1e6) }

    /// The article's image at the default --max-pixel: the thumbnail's floor is its bitmap at 1024 x 683;
    /// today's thumbnail keeps the JPEG's cheapest DCT scale (1500 x 1000), and the summary shows the
    /// difference as `bitmap` excess.
    @Test func downloadThumbnailsFloorIsTheBitmapAtMaxPixelAndTheRestIsBitmapExcess() throws {
        let run = try Self.measure([
            "--strategy", "download", "--render", "thumbnail", "--allocator", "system",
            "--runs", "1",
        ])
        defer { try? FileManager.default.removeItem(at: run.folder) }
        let trial = try #require(run.trials.first)
        #expect(trial.floorBytes == 1024 * 683 * 4)
        let holders = try #require(run.holders.first).holders
        let described = holders.map { "\($0.allocatedBy) \($0.role as Any)" }
        let bitmap = try #require(holders.first { $0.role == .bitmap }, "\(described)")
        #expect(bitmap.bytes >= 1500 * 1000 * 4 && bitmap.bytes <= 1500 * 1000 * 4 + 4096, "\(bitmap.bytes)")
        #expect(bitmap.allocatedBy.hasPrefix("DecodedImage.init"))
        let cell = "  download+thumbnail [system]: floor "
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix(cell) }, "\(run.output)")
        #expect(line.hasPrefix("  download+thumbnail [system]: floor \(Self.mb(1024 * 683 * 4)) MB;"), "\(line)")
        let excess = String(format: "%+.1f MB bitmap (", Double(bitmap.bytes - 1024 * 683 * 4) / 1e6)
        #expect(line.contains(excess), "\(excess) in \(line)")
    }

    /// The article's four cells on a small image: the body once (data), the fixed buffer (download),
    /// the bitmap beside the body when decoding from memory, alone from a file.
    @Test func theArticlesCellsFloorsFollowTheirRules() throws {
        let run = try Self.measure([
            "--strategy", "data,download", "--render", "none,full", "--allocator", "system",
            "--runs", "1", "--width", "1200", "--height", "800",
        ])
        defer { try? FileManager.default.removeItem(at: run.folder) }
        #expect(run.trials.count == 4)
        let bitmap = 1200 * 800 * 4
        for trial in run.trials {
            let payload = try #require(trial.payloadBytes)
            let expected: Int
            switch (trial.strategy, trial.render) {
            case ("data", .none): expected = payload
            case ("download", .none): expected = FetchFloor.fileStreamingBufferBytes
            case ("data", .full): expected = payload + bitmap
            default: expected = bitmap
            }
            #expect(trial.floorBytes == expected, "\(trial.cell)")
            #expect(
                run.output.contains("  \(trial.cell): floor \(Self.mb(expected)) MB;"),
                "\(trial.cell): \(run.output)"
            )
        }
    }

    /// Every built-in strategy, real children: an in-memory API's body is the one `body` holder, of
    /// the payload's size; a file's strategy has none; the decoded image is the `bitmap`; no holder
    /// of a megabyte or more is left as `other`; the small blocks are `other`.
    @Test func everyBuiltInStrategysHoldersHaveRoles() throws {
        let run = try Self.measure([
            "--strategy", "all", "--render", "full", "--allocator", "system", "--runs", "1",
            "--width", "2400", "--height", "1600",
        ])
        defer { try? FileManager.default.removeItem(at: run.folder) }
        let inMemory: Set = ["data", "async-data", "data-publisher", "future", "contents-of", "curl-memory"]
        let toFile: Set = ["download", "async-download", "download-publisher", "data-stream", "curl-file"]
        #expect(Set(run.trials.map(\.strategy)) == inMemory.union(toFile))
        for trial in run.trials {
            #expect(trial.isSuccess, "\(trial.cell): \(trial.error)")
            let payload = try #require(trial.payloadBytes)
            #expect(payload > 1_000_000, "a payload big enough to be a holder")
            let holders = try #require(run.holders.first { $0.cell == trial.cell }, "\(trial.cell)").holders
            let described = holders.map { "\($0.bytes) \($0.allocatedBy) \($0.role?.rawValue ?? "-")" }
            let bodies = holders.filter { $0.role == .body }
            if inMemory.contains(trial.strategy) {
                #expect(bodies.count == 1, "\(trial.cell): \(described)")
                if let body = bodies.first {
                    #expect(
                        body.bytes >= payload && Double(body.bytes) <= Double(payload) * 1.01,
                        "\(trial.cell): \(described)"
                    )
                }
            } else {
                #expect(bodies.isEmpty, "\(trial.cell): \(described)")
            }
            let bitmaps = holders.filter { $0.role == .bitmap }
            #expect(
                bitmaps.count == 1 && bitmaps.allSatisfy { $0.bytes >= 2400 * 1600 * 4 },
                "\(trial.cell): \(described)"
            )
            #expect(!holders.contains { $0.bytes >= 1_000_000 && $0.role == .other }, "\(trial.cell): \(described)")
        }
        let csv = try String(contentsOf: run.folder.appendingPathComponent("holders.csv"), encoding: .utf8)
        let rows = try CSV.parse(csv)
        let role = try #require(rows.first?.firstIndex(of: "role"))
        let smallBlocks = rows.dropFirst().filter { $0.count > role && $0[8] == PeakHolder.smallBlocks }
        #expect(!smallBlocks.isEmpty && smallBlocks.allSatisfy { $0[role] == "other" })
    }

    /// An extra copy of the body (BENCH_INJECT_REGRESSION=extra-copy) is `body-buffer` excess: `bench
    /// compare` shows both sides' excess over the floor and the copy, the payload's size, as its change.
    /// libcurl's in-memory fetch: URLSession's transfer buffer may or may not still be alive during the
    /// decode, which would make the copy's change race with it.
    @Test func anInjectedCopyIsBodyBufferExcessInCompare() throws {
        let matrix = [
            "--strategy", "curl-memory", "--render", "full", "--allocator", "system", "--runs", "2",
            "--width", "2400", "--height", "1600",
        ]
        let baseline = try Self.measure(matrix)
        defer { try? FileManager.default.removeItem(at: baseline.folder) }
        let current = try Self.measure(matrix, environment: ["BENCH_INJECT_REGRESSION": "extra-copy"])
        defer { try? FileManager.default.removeItem(at: current.folder) }
        let payload = try #require(current.trials.first?.payloadBytes)
        let thresholds = GateThresholdsFile.path
        let compared = try BenchProcess.run([
            "compare", baseline.folder.appendingPathComponent("trials.json").path,
            current.folder.appendingPathComponent("trials.json").path,
            "--thresholds", thresholds,
        ])
        #expect(compared.status == 0 || compared.status == 2, "\(compared.standardOutput)\(compared.standardError)")
        let lines = compared.standardOutput.split(separator: "\n")
        let line = try #require(
            lines.first { $0.hasPrefix("  curl-memory+full [system]: BASELINE ") },
            "\(compared.standardOutput)"
        )
        let change = try #require(line.components(separatedBy: ": ").last, "\(line)")
        let first = try #require(change.split(separator: ";").first, "\(line)")
        #expect(first.contains(" MB body-buffer (") && first.contains("InjectedRegression.apply(to:)"), "\(line)")
        let megabytes = try #require(Double(first.prefix { $0 != " " }), "\(line)")
        #expect(abs(megabytes * 1e6 - Double(payload)) <= 0.01 * Double(payload) + 5_000, "\(line); payload \(payload)")
    }
}
