import BenchCore
import Corpus
import Foundation
import Measuring
import Scenarios
import Testing

/// `bench list --output-files --json` is what scripts read a file's columns from (scripts/encodings.py
/// copies holders.csv's and residency.csv's rows): each file's columns are its writer's header, and
/// trials.csv's figures are its declared columns.
@Suite struct OutputFilesListingTests {
    struct Entry: Decodable {
        var name: String
        var columns: [String]
        var figures: [Figure]
    }

    struct Figure: Decodable, Equatable {
        var name: String
        var unit: String
        var polarity: String
        var meaning: String
    }

    static func entries() throws -> [String: Entry] {
        let entries = try JSONDecoder().decode([Entry].self, from: Data(try OutputFiles.json().utf8))
        return Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0) })
    }

    /// The header line each writer writes for an empty run.
    static func header(_ text: String) -> [String] {
        String(text.prefix { $0 != "\n" }).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func everyFileIsListedWithItsWritersHeader() throws {
        let entries = try Self.entries()
        #expect(entries.keys.sorted() == OutputFiles.all.map(\.name).sorted())
        #expect(try #require(entries["trials.csv"]).columns == Self.header(TrialsCSV.render([], runID: "r")))
        #expect(try #require(entries["timeline.csv"]).columns == Self.header(TimelineCSV.render([], runID: "r")))
        #expect(try #require(entries["holders.csv"]).columns == Self.header(HoldersCSV.render([], runID: "r")))
        #expect(try #require(entries["residency.csv"]).columns == Self.header(ResidencyCSV.render([], runID: "r")))
        #expect(try #require(entries["corpus.csv"]).columns == Self.header(CorpusCSV.render([], runID: "r")))
    }

    @Test func trialsFiguresAreItsDeclaredColumns() throws {
        let trials = try #require(try Self.entries()["trials.csv"])
        #expect(
            trials.figures
                == TrialsCSV.columns.map {
                    Figure(
                        name: $0.name,
                        unit: $0.column.unit.rawValue,
                        polarity: $0.column.polarity.rawValue,
                        meaning: $0.column.meaning
                    )
                }
        )
        #expect(trials.figures.first { $0.name == "peak_rss_delta_bytes" }?.polarity == "lower")
    }

    /// corpus.csv declares every column it writes, the image's facts as well as the run's figures,
    /// and takes the run's from trials.csv's declarations unchanged.
    @Test func corpusDeclaresEveryColumnItWrites() throws {
        let corpus = try #require(try Self.entries()["corpus.csv"])
        #expect(corpus.figures.map(\.name) == Array(Self.header(CorpusCSV.render([], runID: "r")).dropLast()))
        let trials = try #require(try Self.entries()["trials.csv"])
        let runFigures = [
            "strategy", "render", "allocator", "run", "pid", "peak_rss_delta_bytes", "peak_heap_exact_delta_bytes",
            "final_rss_bytes", "duration_s", "floor_bytes",
        ]
        for name in runFigures {
            #expect(corpus.figures.first { $0.name == name } == trials.figures.first { $0.name == name }, "\(name)")
        }
    }

    /// list-scroll.csv is listed with its writer's header and its declared figures, and says the name
    /// it had in folders of the previous format (scripts and readers find its rows there too).
    @Test func listScrollIsListedWithItsColumnsAndFigures() throws {
        let listScroll = try #require(try Self.entries()["list-scroll.csv"])
        #expect(listScroll.columns == Self.header(try ListScrollCSV.appending([], runID: "r", to: "", path: "")))
        #expect(listScroll.figures.map(\.name) == ListScrollCSV.columns.map(\.name))
        let peak = listScroll.figures.first { $0.name == "peak_rss_bytes" }
        #expect(peak?.unit == "bytes" && peak?.polarity == "lower")
        let json = try JSONSerialization.jsonObject(with: Data(try OutputFiles.json().utf8)) as? [[String: Any]]
        #expect(
            json?.first { $0["name"] as? String == "list-scroll.csv" }?["previousName"] as? String == "scenario.csv"
        )
    }
}
