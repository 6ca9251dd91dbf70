import BenchCore
import Foundation
import ReferenceDocuments
import Report
import Testing

/// results/README.md's claims about the committed baseline, recomputed from results/baseline.json:
/// a count of runs in the high mode typed by hand drifts from the file it describes.
@Suite struct GateReadmeTests {
    static let results = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("results")

    static func readme() throws -> String {
        // Lines are wrapped and indented anywhere: compare on one line, one space between words.
        try String(contentsOf: results.appendingPathComponent("README.md"), encoding: .utf8)
            .replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
    }

    static func baseline() throws -> [TrialResult] {
        try TrialsFile.load(results.appendingPathComponent("baseline.json").path)
    }

    /// The integers a pattern's groups capture in `text`.
    static func numbers(_ pattern: String, in text: String) throws -> [Int] {
        let regex = try NSRegularExpression(pattern: pattern)
        let match = try #require(
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            "README.md does not say: \(pattern)"
        )
        return (1..<match.numberOfRanges).map { Int((text as NSString).substring(with: match.range(at: $0)))! }
    }

    @Test func runCountsAndCellsMatchTheBaseline() throws {
        let claimed = try Self.numbers(
            #"The committed baseline holds the article's (\d+) cases \(data / download x none / full\) x (\d+) allocators, (\d+) runs per cell"#,
            in: try Self.readme()
        )
        let runs = try Self.baseline()
        let cells = Dictionary(grouping: runs, by: \.cell)
        let cases = Set(runs.map { "\($0.strategy)+\($0.render.rawValue)" })
        #expect(cases == ["data+none", "data+full", "download+none", "download+full"])
        #expect(claimed[0] == cases.count)
        #expect(claimed[1] == Set(runs.map(\.allocator)).count)
        #expect(cells.values.allSatisfy { $0.count == claimed[2] }, "\(cells.mapValues(\.count))")
    }

    /// Runs of data+full whose heap peak is more than half the 16.8 MB step above the cell's median.
    @Test func bimodalCountsMatchTheBaseline() throws {
        let claimed = try Self.numbers(
            #"in the committed baseline, (\d+) of (\d+) jemalloc runs and (\d+) of (\d+) glibc runs are ~16\.8 MB higher"#,
            in: try Self.readme()
        )
        let runs = try Self.baseline()
        for (allocator, offset) in [(Allocator.jemalloc, 0), (.system, 2)] {
            let peaks = runs.filter { $0.cell == TrialCell(strategy: "data", render: .full, allocator: allocator) }
                .compactMap { GateMetric.peakAllocatedDelta.value(of: $0) }.map(Double.init)
            let median = try #require(Distribution(peaks)).median
            let high = peaks.filter { $0 > median + 8_400_000 }
            #expect(high.count == claimed[offset], "\(allocator): \(high.count) high of \(peaks.count)")
            #expect(peaks.count == claimed[offset + 1])
            // The step is ~16.8 MB, as claimed (bounded both ways).
            for value in high { #expect(value - median > 15_000_000 && value - median < 18_500_000) }
        }
    }

    /// The false-alarm rates results/README.md gives for the gate's two levels are what
    /// `bench-reference gate-simulation` computes from the committed baseline and thresholds.
    @Test func falseAlarmRatesAreTheSimulations() throws {
        let pattern =
            #"At q = 0\.1 \(the observed 1 in 10\) it flags ([0-9.]+) % \(jemalloc\) and ([0-9.]+) % \(glibc\) of unchanged gates at 0\.05, ([0-9.]+) % and ([0-9.]+) % at 0\.005; at q = 0\.3 \(`--rate 0\.3`\), ([0-9.]+) % and ([0-9.]+) % at 0\.05, ([0-9.]+) % and ([0-9.]+) % at 0\.005"#
        let text = try Self.readme()
        let regex = try NSRegularExpression(pattern: pattern)
        let match = try #require(
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            "README.md does not say: \(pattern)"
        )
        let claimed = (1..<match.numberOfRanges).map { (text as NSString).substring(with: match.range(at: $0)) }
        let thresholds = try GateThresholds.load(from: Self.results.appendingPathComponent("thresholds.json"))
        let tolerance = try #require(thresholds.metrics[.peakAllocatedDelta])
        var computed: [String] = []
        for rate in [nil, 0.3] {
            var simulation = GateSimulation()
            simulation.rate = rate
            let outcomes = Dictionary(
                uniqueKeysWithValues: simulation.run(baseline: try Self.baseline(), tolerance: tolerance).map {
                    ($0.allocator, $0)
                }
            )
            let jemalloc = try #require(outcomes[.jemalloc])
            let glibc = try #require(outcomes[.system])
            #expect(abs(jemalloc.rate - (rate ?? 0.1)) < 1e-9 && abs(glibc.rate - (rate ?? 0.1)) < 1e-9)
            for level in [0.05, 0.005] {
                computed += [jemalloc, glibc].map { String(format: "%.2f", $0.percentFlagged(at: level)) }
            }
        }
        #expect(claimed == computed)
    }
}
