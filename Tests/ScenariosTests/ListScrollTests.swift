import Foundation
import Harness
import Imaging
import Scenarios
import TestSupport
import Testing

/// Runs the real scroll in a real `bench _list-scroll` child against the real loopback server.
@Suite(.serialized) struct ListScrollTests {
    /// Each row is visible for 0.1 s, and its body needs about 0.5 s at the throttled rate: most rows
    /// leave before their transfer ends, and cancelling must stop those transfers at the server.
    func scroll(
        _ strategy: ScrollStrategy,
        cacheLimit: Int = 0,
        bandwidth: Int? = 500_000,
        configure: (inout ListScrollScenario.Settings) -> Void = { _ in }
    ) throws -> ScrollResult {
        var settings = ListScrollScenario.Settings(
            strategy: strategy,
            render: .thumbnail,
            fixtures: [
                FixtureSpec(width: 1600, height: 1200, quality: 85, seed: 31),
                FixtureSpec(width: 1200, height: 900, quality: 85, seed: 32),
            ],
            fixtureCacheDirectory: testFixtureCache("scenario")
        )
        settings.rows = 12
        settings.visibleRows = 2
        settings.rowsPerSecond = 20
        settings.maxConcurrent = 2
        settings.cacheLimitBytes = cacheLimit
        settings.bandwidthBytesPerSecond = bandwidth
        settings.timeoutSeconds = 60
        configure(&settings)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scenario-test-\(UUID().uuidString.prefix(8))"
        )
        let result = try ListScrollScenario(
            settings: settings,
            launcher: ListScrollLauncher(executable: benchExecutable())
        )
        .run(workDirectory: work)
        print(ListScrollTable.line(result))
        #expect(result.status == .ok, "\(result.error)")
        return result
    }

    @Test func cancellationStopsTransfersAndLeavesNoFiles() throws {
        for strategy in ScrollStrategy.allCases {
            let result = try scroll(strategy)
            // The parent's settings the child never sees are recorded on its row.
            #expect(result.bandwidthBytesPerSecond == 500_000 && result.fixtureSizes == ["1600x1200", "1200x900"])
            #expect((result.requestsCancelled ?? 0) > 0, "\(strategy)")
            #expect(
                result.bytesSent < result.payloadBytesAllRows / 2,
                "\(strategy): cancelled transfers went on at the server"
            )
            #expect((result.bytesWasted ?? 0) > 0, "\(strategy)")
            #expect(result.bytesSent >= (try #require(result.bytesDelivered)), "\(strategy)")
            #expect(result.serverRequests == result.requestsStarted, "\(strategy)")
            #expect(result.leftoverFiles == 0, "\(strategy): files left in the child's TMPDIR")
            if strategy == .download {
                // FoundationNetworking leaves a partial file per cancelled download; the loader removes them.
                #expect((result.orphanedFilesRemoved ?? 0) > 0)
            }
            // The rows on screen when scrolling stops always get their images.
            #expect((result.rowsShown ?? 0) >= 2, "\(strategy)")
        }
    }

    /// Every other row's body is cut off halfway, on every attempt: each such row costs its
    /// retries in wasted bytes, then shows a placeholder, and no partial file stays behind.
    @Test func retriesUnderTruncatedBodiesFallBackAndLeaveNoFiles() throws {
        for strategy in ScrollStrategy.allCases {
            let result = try scroll(strategy, bandwidth: nil) { settings in
                settings.rows = 8
                settings.rowsPerSecond = 10
                settings.fault = .truncate
                settings.faultEvery = 2
                settings.retries = 2
            }
            let failed = try #require(result.requestsFailed)
            let retried = try #require(result.requestsRetried)
            #expect(failed > 0, "\(strategy)")
            #expect(retried > 0, "\(strategy)")
            #expect(retried <= 2 * (failed + (try #require(result.requestsCancelled))), "\(strategy)")
            #expect((result.rowsFallback ?? 0) > 0, "\(strategy)")
            #expect((result.bytesWasted ?? 0) > 0, "\(strategy): truncated bodies crossed the wire for nothing")
            #expect(result.serverRequests == result.requestsStarted, "\(strategy)")
            #expect(result.leftoverFiles == 0, "\(strategy): files left in the child's TMPDIR")
        }
    }

    @Test func scrollingBackIsServedFromTheCache() throws {
        // Unthrottled, so rows get their images before they leave, and the way back finds them cached.
        let result = try scroll(.data, cacheLimit: 64 << 20, bandwidth: nil)
        #expect((result.cacheHits ?? 0) > 0)
        #expect(try #require(result.cacheFinalBytes) <= 64 << 20)
    }
}

@Suite(.serialized) struct MemoryBudgetTests {
    /// A budget below what the child maps before any work is refused with a message, not a hang.
    @Test func budgetBelowTheChildsOwnFootprintIsAClearError() throws {
        var settings = ListScrollScenario.Settings(
            strategy: .data,
            render: .thumbnail,
            fixtures: [FixtureSpec(width: 320, height: 240, seed: 33)],
            fixtureCacheDirectory: testFixtureCache("scenario")
        )
        settings.rows = 2
        settings.visibleRows = 1
        settings.memoryLimitBytes = 1 << 20
        settings.timeoutSeconds = 30
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scenario-test-\(UUID().uuidString.prefix(8))"
        )
        let result = try ListScrollScenario(
            settings: settings,
            launcher: ListScrollLauncher(executable: benchExecutable())
        )
        .run(workDirectory: work)
        #expect(result.status == .harnessError)
        #expect(result.error.contains("VmData"), "\(result.error)")
        // A child that could not start its scroll measured nothing: its readings are not measured, not zero.
        #expect(result.requestsStarted == nil && result.baselineRSSBytes == nil && result.durationSeconds == nil)
    }

    /// A scroll of 2400x1600 full decodes under a --memory-limit of 40 to 46 MiB, where a new thread's
    /// stack (RLIMIT_DATA counts it) may not fit: which limit hits which thread depends on which starts
    /// first. Over budget ends at once, as a killed child, a placeholder row or an error row naming
    /// --memory-limit: never a timeout (libdispatch would retry pthread_create forever).
    @Test(arguments: ["40Mi", "44Mi", "46Mi"])
    func scrollOverBudgetEndsWithoutTimingOut(limit: String) throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scenario-test-\(UUID().uuidString.prefix(8))"
        )
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: benchExecutable())
        process.arguments = [
            "scenario", "list-scroll", "--rows", "20", "--speed", "50", "--render", "full", "--sizes", "2400x1600",
            "--timeout", "10", "--memory-limit", limit, "--out", out.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = try String(contentsOf: out.appendingPathComponent("list-scroll.csv"), encoding: .utf8)
        let lines = text.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = try #require(lines.first)
        let row = Dictionary(uniqueKeysWithValues: zip(header, try #require(lines.dropFirst().first)))
        #expect(row["status"] != "timeout", "\(row["error"] ?? "")")
        #expect(
            ["crashed", "harness_error"].contains(row["status"]) || Int(row["rows_fallback"] ?? "") ?? 0 > 0,
            "\(row)"
        )
        if row["error"]?.contains("thread could not start") == true {
            #expect(row["error"]?.contains("--memory-limit") == true)
        }
    }
}
