import Foundation
import Report
import TestSupport
import Testing

/// `bench sweep`: for real once (fixtures of two sizes, real children, the data and download tasks),
/// then in-process (`InProcessBench`, recorded children) for its options.
@Suite struct SweepTests {
    @Test func sweepMeasuresEachSizeAndTheDataTaskGrowsWithIt() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try BenchProcess.run([
            "sweep", "--strategy", "data", "--strategy", "download",
            "--sizes", "1,4", "--runs", "1", "--out", folder.path,
        ])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("bytes held per payload byte"))

        let rows = try SweepCSV.parse(String(contentsOf: folder.appendingPathComponent("sweep.csv"), encoding: .utf8))
        #expect(rows.count == 4, "2 strategies x 2 sizes x 1 run")
        for row in rows {
            #expect(row.result.isSuccess, "\(row.result.error)")
            let payload = Double(row.result.payloadBytes ?? 0)
            // Sized from the article fixture's bytes per pixel: close to the target, not exact.
            #expect(
                abs(payload - Double(row.step.targetBytes)) < 0.3 * Double(row.step.targetBytes),
                "\(row.step): \(payload) bytes"
            )
            #expect(row.step.width % 16 == 0 && row.step.height % 16 == 0)
        }
        let data = rows.filter { $0.result.strategy == "data" }.sorted { $0.step.targetBytes < $1.step.targetBytes }
        #expect(data.count == 2)
        if data.count == 2 {
            // 3 MB more payload must show as more held memory: the body is in memory.
            #expect((data[1].result.peakRSSDeltaBytes ?? 0) - (data[0].result.peakRSSDeltaBytes ?? 0) > 2_000_000)
        }
    }

    /// --allocator takes a list, as in `bench run`: both allocators are measured, and each series says its allocator.
    @Test func sweepTakesAListOfAllocators() throws {
        let folder = BenchProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = InProcessBench.run([
            "sweep", "--strategy", "download", "--allocator", "system,jemalloc",
            "--sizes", "0.05", "--runs", "1", "--out", folder.path,
        ])
        #expect(output.status == 0, "\(output.standardError)")
        let rows = try SweepCSV.parse(String(contentsOf: folder.appendingPathComponent("sweep.csv"), encoding: .utf8))
        #expect(rows.map(\.result.allocator.rawValue).sorted() == ["jemalloc", "system"], "\(rows.map(\.result.cell))")
        #expect(
            output.standardOutput.contains("download [system]:")
                && output.standardOutput.contains("download [jemalloc]:"),
            "\(output.standardOutput)"
        )
    }

    /// Its help names every exit status it can end with, SIGHUP's 129 among them.
    @Test func sweepHelpNamesTheHangUpStatus() {
        let help = InProcessBench.parse(["sweep", "--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("129"), "\(help.standardOutput)")
    }
}
