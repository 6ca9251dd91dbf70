import BenchCore
import Foundation
import TestSupport
import Testing

/// `bench report` over a trials.csv whose pid does not fit a process id (found by make fuzz), in-process.
@Suite struct TrialsCSVPidTests {
    @Test func aPidPastInt32IsADataErrorNamingIt() throws {
        let folder = TestFolder.temporary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let trials = RecordedChildren.trials(runs: 2)
        let lines = TrialsCSV.render(trials).split(separator: "\n").map(String.init)
        let pidColumn = try #require(lines[0].split(separator: ",").firstIndex(of: "pid"))
        var fields = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        fields[pidColumn] = "2553708401"
        try ([lines[0], fields.joined(separator: ",")] + lines.dropFirst(2)).joined(separator: "\n")
            .appending("\n").write(to: folder.appendingPathComponent("trials.csv"), atomically: true, encoding: .utf8)
        let output = InProcessBench.run([
            "report", "--results", folder.path, "--no-report", "--data-out", folder.appendingPathComponent("data").path,
        ])
        #expect(output.status == 65, "\(output.status): \(output.standardError.suffix(600))")
        #expect(output.standardError.contains("pid '2553708401'"), "\(output.standardError.suffix(600))")
    }
}
