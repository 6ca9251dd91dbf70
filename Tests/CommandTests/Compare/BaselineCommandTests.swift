import Foundation
import Report
import TestSupport
import Testing

/// `bench baseline update --from`: the export becomes a baseline that `bench compare` accepts,
/// and a run with failed trials is refused (in-process, `InProcessBench`).
@Suite struct BaselineCommandTests {
    func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = TestFolder.temporary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    @Test func exportBecomesABaselineThatCompareAccepts() throws {
        try withFolder { folder in
            let csv = folder.appendingPathComponent("trials.csv")
            try CompareCommandTests.trials(runs: 10).write(to: csv, atomically: true, encoding: .utf8)
            let baseline = folder.appendingPathComponent("baseline.json")
            let update = InProcessBench.run(["baseline", "update", "--from", csv.path, "--baseline", baseline.path])
            #expect(update.status == 0, "\(update.standardError)")
            #expect(update.standardOutput.contains("4 cells, 40 runs"))
            #expect(try TrialsFile.load(baseline.path).count == 40)

            let compare = InProcessBench.run([
                "compare", baseline.path, csv.path,
                "--thresholds", CompareCommandTests.thresholdsFile,
            ])
            #expect(compare.status == 0, "\(compare.standardOutput)")
        }
    }

    @Test func exportWithFailedRunsIsRefused() throws {
        try withFolder { folder in
            let csv = folder.appendingPathComponent("trials.csv")
            try CompareCommandTests.trials(runs: 3, failing: "data/full/system").write(
                to: csv,
                atomically: true,
                encoding: .utf8
            )
            let baseline = folder.appendingPathComponent("baseline.json")
            let update = InProcessBench.run(["baseline", "update", "--from", csv.path, "--baseline", baseline.path])
            #expect(update.status == 3)
            #expect(update.standardError.contains("1 of 12 runs"))
            #expect(!FileManager.default.fileExists(atPath: baseline.path))
        }
    }
}
